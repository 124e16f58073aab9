/**
 * Working hours per connection (Google Calendar has no API for them): set by admins, read by the calendar
 * tools; NULL means the default (09:00-17:00, Monday-Friday). Kept across reconnects (the upsert does not touch
 * it) and gone with the connection.
 */
export default `
ALTER TABLE integration_credentials ADD COLUMN working_hours jsonb NULL;
`;
