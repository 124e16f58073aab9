import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RpcId } from './messages';

/**
 * The MCP SDK's Server answers the protocol's own messages — `initialize` (version negotiation, capabilities,
 * server info and instructions), `ping`, notifications, and -32601 for a method the Hub does not serve — through
 * a transport that lives for one HTTP request and hands each answer back to the caller that asked. The Hub's own
 * methods (tools/list, tools/call) are answered before they would reach it (src/mcp/answer.ts).
 */

const SERVER_INFO = { name: 'hub', title: 'Hub: calendar and email tools (Google Calendar, Gmail, Outlook)', version: '1.0.0' };

/** What `initialize` tells the model about using these tools well (clients add it to the system prompt). */
export const INSTRUCTIONS = [
  "Hub runs calendar and email tools (Google Calendar and Gmail, or Outlook) on behalf of the customer (and end user) this connection's headers name.",
  'A failed call is a tool result with isError: its text names the error code, each argument at fault and why, and what to do next —',
  'fix those arguments, wait the seconds it gives, or ask a person to connect the integration at the setup_url it gives.',
  'For a tool that writes (create, update, delete, send), put a request id in the call\'s _meta ({"request_id": "<unique per action>"}),',
  'not in the arguments, and send the same id again when retrying that action: the Hub runs it at most once.',
  'Times are RFC 3339 with an offset; hub_current_time gives the current time in a time zone.',
].join(' ');

class OneRequestTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private waiting: { id: RpcId; resolve: (answer: JSONRPCMessage) => void } | undefined;

  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  /** The answer to the request being asked; anything else the server sends (notifications) has no stream to go to. */
  async send(message: JSONRPCMessage): Promise<void> {
    const w = this.waiting;
    if (w !== undefined && 'id' in message && message.id === w.id && ('result' in message || 'error' in message)) {
      this.waiting = undefined;
      w.resolve(message);
    }
  }
  ask(message: Record<string, unknown> & { id: RpcId }): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.waiting = { id: message.id, resolve };
      this.onmessage!(message as JSONRPCMessage);
    });
  }
  tell(message: Record<string, unknown>): void {
    this.onmessage!(message as JSONRPCMessage);
  }
}

/** A protocol server for one HTTP request; its members are asked one at a time. */
export interface ProtocolServer {
  ask(message: Record<string, unknown> & { id: RpcId }): Promise<JSONRPCMessage>;
  tell(message: Record<string, unknown>): void;
  close(): void;
}

export async function protocolServer(): Promise<ProtocolServer> {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  const transport = new OneRequestTransport();
  await server.connect(transport);
  return {
    ask: (message) => transport.ask(message),
    tell: (message) => transport.tell(message),
    close: () => void server.close(),
  };
}
