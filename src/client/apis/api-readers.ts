/**
 * The response reader of each built API (protocol/apis.ts): a registry the compiler checks, so an API
 * added to API_KINDS without its reader here does not compile.
 */
import type { ApiKind } from '../../protocol/apis.js';
import type { ApiReader } from './api-reader.js';
import { chatReader } from './chat-reader.js';
import { completionsReader } from './completions-reader.js';
import { embeddingsReader } from './embeddings-reader.js';
import { responsesReader } from './responses-reader.js';
import { messagesReader } from './messages-reader.js';

export const API_READERS = {
  chat: chatReader,
  completions: completionsReader,
  embeddings: embeddingsReader,
  responses: responsesReader,
  messages: messagesReader,
} as const satisfies Record<ApiKind, ApiReader>;
