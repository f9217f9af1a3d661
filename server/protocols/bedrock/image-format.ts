/** Bedrock names an image's encoding by format; the IR carries a media type. */
const FORMAT_FOR_MEDIA_TYPE: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export function mediaTypeFromFormat(format: string): string {
  return `image/${format}`;
}

/** undefined for media types Bedrock cannot take. */
export function formatFromMediaType(mediaType: string): string | undefined {
  return FORMAT_FOR_MEDIA_TYPE[mediaType.toLowerCase()];
}
