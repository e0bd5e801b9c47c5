/**
 * The part of parse-prometheus-text-format 1.1.1 (which ships no types) that exposition.ts uses. Values
 * stay strings as written ("NaN", "+Inf", "1.5e+06"); a histogram family's samples are folded into one
 * `buckets` map per label set (its `le` label removed), a summary's into `quantiles`. What it cannot read
 * it mostly skips silently rather than throwing: exposition.ts checks for that.
 */
declare module 'parse-prometheus-text-format' {
  interface ParsedValueSample {
    readonly value: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly timestamp_ms?: string;
  }
  interface ParsedHistogramSample {
    readonly buckets: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
    readonly labels?: Readonly<Record<string, string>>;
  }
  interface ParsedSummarySample {
    readonly quantiles: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
    readonly labels?: Readonly<Record<string, string>>;
  }
  export interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly (ParsedValueSample | ParsedHistogramSample | ParsedSummarySample)[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
