/**
 * Validation of `reasoning_effort` and `reasoning_format` against the model: only reasoning models take
 * them, each accepts only its own efforts (one model `low`/`medium`/`high`, the other also `none`) and
 * formats (one of the spec's models refuses `raw` and `hidden`).
 */
import { REASONING_FORMATS, type ReasoningEffort, type ReasoningFormat } from '../../protocol/chat.js';
import { badRequest } from '../api-error.js';
import type { ModelSpec } from '../model-spec.js';
import { isSet, requireEnum } from './field-checks.js';

const EFFORTS: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'none'];

/** Checks `reasoning_effort` (may be absent) against the model's accepted efforts. */
export function validateReasoningEffort(value: unknown, model: ModelSpec): ReasoningEffort | undefined {
  if (!isSet(value)) return undefined;
  const effort = requireEnum(value, 'reasoning_effort', EFFORTS);
  if (!model.reasoning) {
    throw badRequest(
      `'reasoning_effort' is not supported by model '${model.id}', which does not reason.`,
      'reasoning_effort',
    );
  }
  if (!model.reasoning.efforts.includes(effort)) {
    throw badRequest(
      `'reasoning_effort' '${effort}' is not supported by model '${model.id}'; it accepts ${model.reasoning.efforts.map((e) => `'${e}'`).join(', ')}.`,
      'reasoning_effort',
    );
  }
  return effort;
}

/** Checks `reasoning_format` (may be absent) against the model's supported formats. */
export function validateReasoningFormat(value: unknown, model: ModelSpec): ReasoningFormat | undefined {
  if (!isSet(value)) return undefined;
  const format = requireEnum(value, 'reasoning_format', REASONING_FORMATS);
  if (!model.reasoning) {
    throw badRequest(
      `'reasoning_format' is not supported by model '${model.id}', which does not reason.`,
      'reasoning_format',
    );
  }
  const supported = model.reasoning.formats.length > 0 ? model.reasoning.formats : ['parsed'];
  if (!supported.includes(format)) {
    throw badRequest(
      `'reasoning_format' '${format}' is not supported by model '${model.id}'; it accepts ${supported.map((f) => `'${f}'`).join(', ')}.`,
      'reasoning_format',
    );
  }
  return format;
}
