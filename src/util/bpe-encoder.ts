/**
 * A byte-pair encoder over a tiktoken rank file (js-tiktoken's `ranks/*` data: pat_str, special_tokens,
 * bpe_ranks), giving exactly js-tiktoken's `Tiktoken` ids, built several times faster. Every process that
 * tokenizes (validate, run and each of its worker threads, the emulator child) builds one before its first
 * count, so the build is on each of their starts: js-tiktoken turns the 200,000 ranks into an object, then
 * each into a byte array and a comma-joined map key (about a second of CPU); here each rank is one map entry
 * keyed by its bytes as a latin1 string, and the regexes are compiled once, not on every encode() call.
 *
 * Same algorithm as js-tiktoken (and tiktoken): split with pat_str, look each piece's UTF-8 bytes up whole,
 * else merge adjacent parts by lowest rank, leftmost first. Decoding goes through the same TextDecoder.
 */

/** The shape of js-tiktoken's rank modules (`js-tiktoken/ranks/o200k_base`). */
export interface BpeRanks {
  readonly pat_str: string;
  readonly special_tokens: Readonly<Record<string, number>>;
  readonly bpe_ranks: string;
}

export class BpeEncoder {
  /** Token bytes (latin1: one char per byte) -> rank. */
  readonly #rankOf = new Map<string, number>();
  /** Rank -> token bytes (latin1), special tokens included: ranks are dense, so an array (a Map costs ~25% more to build). */
  readonly #bytesOf: string[] = [];
  readonly #pretokens: RegExp;
  readonly #special: RegExp | null;
  readonly #decoder = new TextDecoder('utf-8');

  constructor(ranks: BpeRanks) {
    for (const line of ranks.bpe_ranks.split('\n')) {
      if (line === '') continue;
      // "<name> <first rank> <base64 token> <base64 token> ...": consecutive ranks from the first.
      const fields = line.split(' ');
      let rank = Number.parseInt(fields[1] as string, 10);
      for (let i = 2; i < fields.length; i++, rank++) {
        const bytes = atob(fields[i] as string);
        this.#rankOf.set(bytes, rank);
        this.#bytesOf[rank] = bytes;
      }
    }
    const specials = Object.entries(ranks.special_tokens);
    for (const [text, rank] of specials) this.#bytesOf[rank] = Buffer.from(text, 'utf8').toString('latin1');
    this.#pretokens = new RegExp(ranks.pat_str, 'ug');
    this.#special =
      specials.length === 0
        ? null
        : new RegExp(specials.map(([text]) => text.replace(/[\\^$*+?.()|[\]{}]/g, '\\$&')).join('|'));
  }

  /**
   * Token ids of `text`. With `specialAsText` false (js-tiktoken's default) a special token's text in it
   * throws, as js-tiktoken's encode(text) does; true counts it as ordinary text (encode(text, [], [])).
   */
  encode(text: string, specialAsText = false): number[] {
    if (!specialAsText && this.#special !== null) {
      const match = this.#special.exec(text);
      if (match !== null) throw new Error(`The text contains a special token that is not allowed: ${match[0]}`);
    }
    const ids: number[] = [];
    for (const match of text.matchAll(this.#pretokens)) {
      const piece = Buffer.from(match[0], 'utf8').toString('latin1');
      const whole = this.#rankOf.get(piece);
      if (whole !== undefined) ids.push(whole);
      else this.#merge(piece, ids);
    }
    return ids;
  }

  /** Text of `ids` (unknown ids are skipped; bytes that are not UTF-8 become U+FFFD, as in js-tiktoken). */
  decode(ids: readonly number[]): string {
    let bytes = '';
    for (const id of ids) bytes += this.#bytesOf[id] ?? '';
    return this.#decoder.decode(Buffer.from(bytes, 'latin1'));
  }

  /** Byte-pair merge of one piece, its ids appended to `ids`: lowest-ranked adjacent pair first, leftmost on a tie. */
  #merge(piece: string, ids: number[]): void {
    // Part k is piece.slice(bounds[k], bounds[k + 1]); merging parts k and k + 1 drops bounds[k + 1].
    const bounds = Array.from({ length: piece.length + 1 }, (_, i) => i);
    while (bounds.length > 2) {
      let best = -1;
      let bestRank = 0;
      for (let k = 0; k + 2 < bounds.length; k++) {
        const rank = this.#rankOf.get(piece.slice(bounds[k] as number, bounds[k + 2] as number));
        if (rank !== undefined && (best < 0 || rank < bestRank)) {
          best = k;
          bestRank = rank;
        }
      }
      if (best < 0) break;
      bounds.splice(best + 1, 1);
    }
    for (let k = 0; k + 1 < bounds.length; k++) {
      const rank = this.#rankOf.get(piece.slice(bounds[k] as number, bounds[k + 1] as number));
      if (rank !== undefined) ids.push(rank);
    }
  }
}
