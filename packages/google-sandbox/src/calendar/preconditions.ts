import type { ApiCall, ApiResult } from '../api/types';
import { googleError } from '../google-errors';

/**
 * Conditional modification. Calendar guide "Get specific versions of resources"
 * (https://developers.google.com/calendar/api/guides/version-resources): "If you want to update or delete a
 * resource only if it has not changed since you last retrieved it, you can specify an If-Match header that
 * contains the value of the etag from the previous retrieval … Otherwise, you will get a 412 (Precondition
 * failed) response code." The body as clients log it (googleapis/google-api-dotnet-client#222,
 * phw198/OutlookGoogleCalendarSync#1593): `Message[Precondition Failed] Location[If-Match - header]
 * Reason[conditionNotMet] Domain[global]`.
 */
export function failedPrecondition(call: ApiCall, etag: string): ApiResult | undefined {
  const header = call.ifMatch?.trim();
  if (header === undefined || header === '' || header === '*') return undefined;
  const wanted = header.split(',').map((t) => t.trim());
  if (wanted.includes(etag)) return undefined;
  return googleError(412, 'Precondition Failed', { reason: 'conditionNotMet', locationType: 'header', location: 'If-Match' }, { family: 'calendar' });
}
