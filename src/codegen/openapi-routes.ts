import { policyRulesSchema } from '../access/policy-rules';
import { capabilityDefaultBody } from '../routes/admin/capability-defaults';
import { connectLinkBody } from '../routes/admin/create-connect-link';
import { serviceKeyBody } from '../routes/admin/create-service-key';
import { jsonSchema } from '../tools/catalog';

/**
 * Components of openapi.yaml taken from the zod schemas the admin routes validate with, rather than copied into
 * openapi/base.yaml: a field added to or tightened in a route's body shows in the spec by itself.
 */
export function routeSchemas(): Record<string, Record<string, unknown>> {
  return {
    ConnectLinkRequest: jsonSchema(connectLinkBody, 'input'),
    ServiceKeyRequest: jsonSchema(serviceKeyBody, 'input'),
    CapabilityDefaultRequest: jsonSchema(capabilityDefaultBody, 'input'),
    PolicyRules: {
      ...jsonSchema(policyRulesSchema, 'input'),
      description:
        "Every field is optional. In an agent's policy a field left out is the customer's, and `null` says \"no restriction\" (it lifts the customer's). Once a customer or agent has any policy, `max_tool_calls_per_conversation` is 25 (the default) unless set — counted only for calls that name a conversation, unless `require_conversation_id`; with no policy at all, nothing is limited.",
    },
  };
}
