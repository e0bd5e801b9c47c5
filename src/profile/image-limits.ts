/**
 * What synthetic images (`prompt.images`, profile/sections/images.ts) may weigh: per request body and per
 * scenario's pool of variants. The section checks an estimate against them; workload/synthetic-image-parts.ts
 * measures what was built against the same limits.
 */

/** Most image data (data URL characters) one request body may carry. */
export const MAX_BODY_IMAGE_BYTES = 256 * 1024 * 1024;
/** Above this a run warns: the embedded emulator's body limit (32 MiB), and the order of many servers'. */
export const LARGE_BODY_IMAGE_BYTES = 32 * 1024 * 1024;
/** Most image data a scenario's pools of variants may hold. */
export const MAX_POOL_IMAGE_BYTES = 1024 * 1024 * 1024;
