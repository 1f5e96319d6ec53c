import type { ClientCapabilities, InitializeResponse } from '@agentclientprotocol/sdk';
import { VERSION } from '../version.js';

/** The ACP version Beans speaks (the SDK's PROTOCOL_VERSION, without loading the SDK for it). */
export const ACP_PROTOCOL_VERSION = 1;

/** What the client said about itself in `initialize`: the only state that outlives the answer. */
export interface Initialized {
  clientCapabilities: ClientCapabilities;
}

/**
 * Beans' answer to `initialize`: ACP v1 (the only version it speaks, whatever the client asked),
 * session load and list, images and embedded context in prompts, HTTP and SSE MCP servers, no
 * login (providers take keys from the environment or settings).
 */
export function initializeResult(): InitializeResponse {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, close: {} },
    },
    authMethods: [],
    agentInfo: { name: 'beans', title: 'Beans', version: VERSION },
  };
}
