import type { gmail_v1 } from '@googleapis/gmail';

/**
 * Gmail's system labels, in the order labels.list returns them. Only CHAT carries visibility settings there;
 * the others come back as bare {id, name, type}.
 */
export const SYSTEM_LABELS: readonly gmail_v1.Schema$Label[] = [
  { id: 'CHAT', name: 'CHAT', messageListVisibility: 'hide', labelListVisibility: 'labelHide', type: 'system' },
  ...[
    'SENT',
    'INBOX',
    'IMPORTANT',
    'TRASH',
    'DRAFT',
    'SPAM',
    'CATEGORY_FORUMS',
    'CATEGORY_UPDATES',
    'CATEGORY_PERSONAL',
    'CATEGORY_PROMOTIONS',
    'CATEGORY_SOCIAL',
    'STARRED',
    'UNREAD',
  ].map((id) => ({ id, name: id, type: 'system' })),
];

export const SYSTEM_LABEL_IDS: ReadonlySet<string> = new Set(SYSTEM_LABELS.map((l) => l.id!));

/** System labels messages.modify refuses ("Invalid label: SENT" — observed): they follow from how mail got there. */
export const UNMODIFIABLE_LABELS: ReadonlySet<string> = new Set(['SENT', 'DRAFT', 'CHAT']);

export interface UserLabel {
  id: string;
  name: string;
}

export function userLabelResource(label: UserLabel): gmail_v1.Schema$Label {
  return { id: label.id, name: label.name, messageListVisibility: 'show', labelListVisibility: 'labelShow', type: 'user' };
}
