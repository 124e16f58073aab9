/**
 * Every receipt of a call that reached a vendor names the integration that answered it (google_gmail,
 * outlook_calendar…): the console labels the receipt's vendor operations by it (Google API methods or Microsoft
 * Graph operations). Rows written before this migration, and calls that reached no vendor, have none.
 */
export default `
ALTER TABLE audit_receipts ADD COLUMN integration text NULL;
`;
