import { z } from 'zod';

/**
 * The alphabets of the ids tools take as input, whichever provider issued them. They go into request paths, where
 * googleapis refuses the segments "." and ".." (a thrown error, not an answer) and anything else odd is at best a
 * wasted call; so an id that cannot be one is a VALIDATION_ERROR before any call is made or counted. Each pattern is
 * linear (character classes, no nested repetition) and shows in the catalog's JSON Schema.
 */

/**
 * Graph's ids (messages, conversations, events) are URL-safe base64 ("AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0A…=", up to
 * a few hundred characters; learn.microsoft.com/graph/outlook-immutable-id): letters, digits, "-", "_" and "=" —
 * no "." (so no dot segment) and no "/" (so no path syntax).
 */
const GRAPH_ID = '[A-Za-z0-9_=-]{1,1024}';

/**
 * Gmail message and thread ids are hexadecimal strings (e.g. "18c2f1a9b7e4d3c0"); Outlook's are Graph's base64 ids.
 * Letters, digits, "_", "-" and "=" admit both without admitting path syntax.
 */
const MAIL_ID = new RegExp(`^${GRAPH_ID}$`);

export const mailIdInput = (what: string) =>
  z
    .string()
    .regex(MAIL_ID, 'must be a message or thread id: 1–1024 letters, digits, "_", "-" or "="')
    .describe(`The ${what} id, as returned by email_search, email_read or email_send.`);

/**
 * Google's event ids are base32hex (a–v, 0–9; Google's rule for ids a client chooses), recurring instances add
 * "_20240115T140000Z", and events from Gmail start with "_": the first character a letter, digit or "_". Outlook's
 * are Graph's base64 ids (above), which hold no ".".
 */
const EVENT_ID = new RegExp(`^(?:[A-Za-z0-9_][A-Za-z0-9_@.-]{0,1023}|${GRAPH_ID})$`);

export const eventIdInput = z
  .string()
  .regex(EVENT_ID, 'must be an event id as returned by calendar_create_event')
  .describe('The event id returned by calendar_create_event.');

/**
 * Calendar ids are "primary", an account's address, or ids such as "c_1a2b…@group.calendar.google.com" and
 * "en.usa#holiday@group.v.calendar.google.com": an address's characters (RFC 5322 atext, "." and "@") without
 * "/" and "%", which only path tricks need, starting with a letter, digit or "_".
 */
const CALENDAR_ID = /^[A-Za-z0-9_][A-Za-z0-9._@#!$&'*+=?^`{|}~-]{0,1023}$/;

export const calendarIdInput = z
  .string()
  .trim()
  .regex(CALENDAR_ID, 'must be "primary" or a calendar id such as name@example.com')
  .describe('Calendar id: "primary" (the connected account\'s own calendar, the default) or a calendar id / email address.');
