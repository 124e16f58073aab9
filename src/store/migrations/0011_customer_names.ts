/**
 * Customers' display names, set through the admin API (PUT /api/admin/customers/{customer_id}) so the console can
 * show "Acme Travel" rather than a bare UUID. A customer has no row of its own elsewhere (it is the id its
 * connections carry), so a name may exist before any connection. `updated_by` is the admin token's `sub`.
 * The id stays the key everywhere; the name is for people only and is never used to find a customer's data.
 */
export default `
CREATE TABLE customer_names (
  customer_id  uuid        PRIMARY KEY,
  display_name text        NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 100),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  updated_by   text        NULL
);
`;
