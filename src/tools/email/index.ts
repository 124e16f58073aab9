import type { AnyTool } from '../types';
import { emailCheckReplies } from './check-replies';
import { emailRead } from './read';
import { emailSearch } from './search';
import { emailSearchV2 } from './search-v2';
import { emailSend } from './send';

/** The contract's four email tools (Gmail), and email_search's second version (paging). */
export const EMAIL_TOOLS: readonly AnyTool[] = [emailSend, emailSearch, emailSearchV2, emailRead, emailCheckReplies];
