import { z } from 'zod';

/**
 * The alphabets of the Google ids tools take as input. They go into request paths, where googleapis refuses the
 * segments "." and ".." (a thrown error, not an answer) and anything else odd is at best a wasted call; so an id
 * that cannot be one is a VALIDATION_ERROR before any call is made or counted. Each pattern is linear (one
 * character class after a fixed first character) and shows in the catalog's JSON Schema.
 */

/**
 * Gmail message and thread ids are hexadecimal strings (e.g. "18c2f1a9b7e4d3c0") — letters, digits, "_" and "-"
 * leave room for other opaque forms without admitting path syntax.
 */
const GMAIL_ID = /^[A-Za-z0-9_-]{1,256}$/;

export const gmailIdInput = (what: string) =>
  z
    .string()
    .regex(GMAIL_ID, 'must be a Gmail id: 1–256 letters, digits, "_" or "-"')
    .describe(`Gmail ${what} id, as returned by email_search, email_read or email_send.`);

/**
 * Calendar event ids are base32hex (a–v, 0–9; Google's rule for ids a client chooses), recurring instances add
 * "_20240115T140000Z", and events from Gmail start with "_". The first character must be a letter, digit or "_".
 */
const EVENT_ID = /^[A-Za-z0-9_][A-Za-z0-9_@.-]{0,1023}$/;

export const eventIdInput = z
  .string()
  .regex(EVENT_ID, 'must be an event id as returned by calendar_create_event')
  .describe('The event id returned by calendar_create_event (Google Calendar event id).');

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
