import { CALENDAR_TOOLS } from './calendar';
import { EMAIL_TOOLS } from './email';
import { hubCurrentTime } from './hub-current-time';
import { hubEcho } from './hub-echo';
import type { AnyTool } from './types';

/** Every tool the Hub offers. Adding a tool: its own module plus one line here. */
export const BUILT_IN_TOOLS: readonly AnyTool[] = [hubEcho, hubCurrentTime, ...CALENDAR_TOOLS, ...EMAIL_TOOLS];
