/**
 * `stop`: the output ends right before the first occurrence of any stop sequence, which is not returned.
 * Works on token pieces so the returned tokens, the text and usage keep agreeing: whole pieces before the
 * cut stay, the piece the cut falls in is replaced by the real tokenizer's pieces of its kept prefix.
 */
import { appendTextPieces } from './token-pieces.js';

/** Token pieces after a stop cut. */
export interface StopCut {
  readonly pieces: string[];
  /** True when a stop sequence was found (and the text cut before it). */
  readonly stopped: boolean;
}

/** Index of the earliest stop sequence in `text`, or -1. */
export function firstStopIndex(text: string, stops: readonly string[]): number {
  let first = -1;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

/**
 * Cuts `pieces` before the first stop sequence. Exact for prose made of whole pretokens (each piece of
 * token-text is one); callers with pieces that split pretokens (JSON) re-tokenize the cut text instead.
 */
export function cutPiecesAtStop(pieces: readonly string[], stops: readonly string[]): StopCut {
  if (stops.length === 0) return { pieces: [...pieces], stopped: false };
  const at = firstStopIndex(pieces.join(''), stops);
  if (at < 0) return { pieces: [...pieces], stopped: false };
  const kept: string[] = [];
  let offset = 0;
  for (const piece of pieces) {
    if (offset + piece.length <= at) {
      kept.push(piece);
      offset += piece.length;
      continue;
    }
    const prefix = piece.slice(0, at - offset);
    if (prefix.length > 0) appendTextPieces(prefix, kept);
    break;
  }
  return { pieces: kept, stopped: true };
}
