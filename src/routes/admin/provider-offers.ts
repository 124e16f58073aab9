// Every integration the Hub offers, with its provider and capability: what src/core/provider-choice.ts chooses among.
export { OFFERED_INTEGRATIONS } from '../../integrations/catalog';
