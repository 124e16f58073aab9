import { z } from 'zod';
import { ok } from '../core/errors';
import { defineTool } from './types';

const input = z.strictObject({
  message: z.string().min(1).max(10_000).describe('Any text; it is returned unchanged.'),
});

/** A connectivity check: exercises authentication, validation and the envelope without touching Google. */
export const hubEcho = defineTool({
  name: 'hub_echo',
  version: '1.0.0',
  description:
    'Connectivity check for the Hub. Returns the given message unchanged. Use it to verify that the Hub is ' +
    'reachable and your service secret works; it calls no external service and has no side effects.',
  capability: null,
  permissions: [],
  sideEffects: 'reads',
  input,
  output: input,
  run: async (_ctx, { message }) => ok({ message }),
});
