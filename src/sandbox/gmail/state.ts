// Placeholder replaced by the Gmail emulation.
export interface GmailState {}
export function createGmailState(): GmailState {
  return {};
}
