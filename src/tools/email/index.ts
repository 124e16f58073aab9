import type { AnyTool } from '../types';
import { emailCheckReplies } from './check-replies';
import { emailRead } from './read';
import { emailSearch } from './search';
import { emailSend } from './send';

/** The contract's four email tools (Gmail). */
export const EMAIL_TOOLS: readonly AnyTool[] = [emailSend, emailSearch, emailRead, emailCheckReplies];
