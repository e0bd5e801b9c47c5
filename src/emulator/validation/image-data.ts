/**
 * Checks of an image part beyond the shape of its data URL: the data must be a PNG, JPEG, WebP or GIF
 * image (its header is read, the pixels are not), and `detail`, OpenAI's field that the spec does not
 * list, must be one of its values when sent. Either fault is a 400 invalid_request_error naming the field.
 */
import { IMAGE_DETAILS } from '../../protocol/image-tokens.js';
import { badRequest } from '../api-error.js';
import { imageUrlDimensions } from '../generation/image-dimensions.js';
import { describeValue, isSet, type JsonObject } from './field-checks.js';

/** `imageUrl` is the part's `image_url` object (its url already a well-formed base64 data URL); `param` names it. */
export function checkImageData(imageUrl: JsonObject, param: string): void {
  if (imageUrlDimensions(imageUrl) === null) {
    throw badRequest(
      `'${param}.url' does not hold a valid image: its data must be a PNG, JPEG, WebP or GIF image.`,
      `${param}.url`,
    );
  }
  const detail = imageUrl['detail'];
  if (isSet(detail) && !(IMAGE_DETAILS as readonly unknown[]).includes(detail)) {
    throw badRequest(
      `'${param}.detail' must be one of ${IMAGE_DETAILS.map((d) => `'${d}'`).join(', ')}, got ${describeValue(detail)}.`,
      `${param}.detail`,
    );
  }
}
