import type { ApiHandler } from '../api/types';
import { listMessages } from './handlers/list';
import { modifyMessage, trashMessage } from './handlers/modify';
import { getAttachment, getMessage, getProfile, getThread, listLabels } from './handlers/read';
import { sendMessage } from './handlers/send';

/** The Gmail v1 methods the sandbox emulates, keyed by Discovery method id. */
export const GMAIL_HANDLERS: Record<string, ApiHandler> = {
  'gmail.users.getProfile': getProfile,
  'gmail.users.labels.list': listLabels,
  'gmail.users.messages.list': listMessages,
  'gmail.users.messages.get': getMessage,
  'gmail.users.messages.send': sendMessage,
  'gmail.users.messages.modify': modifyMessage,
  'gmail.users.messages.trash': trashMessage,
  'gmail.users.messages.attachments.get': getAttachment,
  'gmail.users.threads.get': getThread,
};
