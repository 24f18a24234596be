import type { AssetableType } from '../api/me';

/**
 * The file-type catalog: the 19 rows of spec 2.3 and, per row, the rules our platform applies
 * (decisions.md "Assets"). The web app checks files against the same rows before sending a byte;
 * the platform re-checks the bytes themselves.
 */

export type ContentKind =
  'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'csv' | 'text';

export const contentKinds: Record<ContentKind, { label: string; mime: string; extensions: string[] }> = {
  jpeg: { label: 'JPEG image', mime: 'image/jpeg', extensions: ['.jpg', '.jpeg'] },
  png: { label: 'PNG image', mime: 'image/png', extensions: ['.png'] },
  webp: { label: 'WebP image', mime: 'image/webp', extensions: ['.webp'] },
  gif: { label: 'GIF image', mime: 'image/gif', extensions: ['.gif'] },
  avif: { label: 'AVIF image', mime: 'image/avif', extensions: ['.avif'] },
  pdf: { label: 'PDF', mime: 'application/pdf', extensions: ['.pdf'] },
  docx: {
    label: 'Word document',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extensions: ['.docx'],
  },
  xlsx: {
    label: 'Excel workbook',
    mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extensions: ['.xlsx'],
  },
  pptx: {
    label: 'PowerPoint presentation',
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extensions: ['.pptx'],
  },
  csv: { label: 'CSV file', mime: 'text/csv', extensions: ['.csv'] },
  text: { label: 'text file', mime: 'text/plain', extensions: ['.txt'] },
};

/** SVG is never accepted: it can carry scripts. */
const imageKinds: ContentKind[] = ['jpeg', 'png', 'webp', 'gif', 'avif'];
const documentKinds: ContentKind[] = ['pdf', ...imageKinds, 'docx', 'xlsx', 'pptx', 'csv', 'text'];

export const maxImageBytes = 25 * 1024 * 1024;
export const maxImagePixels = 100_000_000;
export const defaultMaxFileBytes = 100 * 1024 * 1024;

export interface CropAspect {
  /** width ÷ height; null means free. */
  ratio: number | null;
  round: boolean;
}

export interface FileTypeInfo {
  fileType: string;
  label: string;
  assetableType: AssetableType;
  /** True where spec 2.3 says "not shown" and the assetable type is our decision. */
  assetableTypeIsOurs: boolean;
  documentType: 'file' | 'image';
  thumbifiable: boolean;
  purpose: string;
  accepts: ContentKind[];
  maxBytes: number;
  privateByDefault: boolean;
  cropAspect: CropAspect | null;
}

type Row = [
  fileType: string,
  label: string,
  assetableType: AssetableType,
  documentType: 'file' | 'image',
  thumbifiable: boolean,
  purpose: string,
  extra?: { ours?: true; private?: true; crop?: CropAspect },
];

const free: CropAspect = { ratio: null, round: false };

// prettier-ignore
const rows: Row[] = [
  ['additional_document', 'Additional document', 'Investment', 'file', false, 'Documents of an investment that fit no other Investment file type'],
  ['avatar', 'Avatar', 'User', 'image', false, 'Graphical representation of a user', { crop: { ratio: 1, round: true } }],
  // Our mapping: the spec leaves the assetable type "not shown".
  ['bad_actor_certification', 'Bad actor certification', 'Investment', 'file', false, 'Document stating that a team or its members act in good faith', { ours: true }],
  ['business_plan', 'Business plan', 'Product', 'file', true, "A product's plan for conducting its business", { ours: true }],
  ['charter_document', 'Charter document', 'Product', 'file', true, "Legal filing with a US state describing the company's components and objectives", { ours: true }],
  // Wide, like the hero banners it is shown in; 3:1 would crop too much of ordinary photos.
  ['cover_image', 'Cover image', 'Product', 'image', false, "Large hero image at the top of an investment's landing page", { crop: { ratio: 16 / 9, round: false } }],
  ['drivers_license', "Driver's licence", 'Accreditation', 'image', false, "Investor's driver's license, proves residency, needed for certain investment types", { private: true, crop: free }],
  ['executed_letter_of_accreditation', 'Executed letter of accreditation', 'Accreditation', 'file', false, "Letter executed by an attorney verifying an investor's accreditation status", { ours: true, private: true }],
  ['financial_document', 'Financial document', 'Investment', 'file', true, 'Company financials for a year or set of years'],
  ['intellectual_property', 'Intellectual property', 'Investment', 'file', true, 'Document describing intellectual property held by the company, likely a patent'],
  ['investors_charter_document', "Investor's charter document", 'IndicationOfInterest', 'file', false, 'Charter document giving an investor the right to act for a company'],
  ['investors_corporate_resolution', "Investor's corporate resolution", 'IndicationOfInterest', 'file', false, 'Purpose: to be determined in the interface'],
  ['letter_of_accreditation', 'Letter of accreditation', 'Accreditation', 'file', false, 'Letter from an investor verifying accreditation', { private: true }],
  ['logo', 'Logo', 'Product', 'image', false, "A product's logo", { crop: free }],
  ['one_page_teaser', 'One-page teaser', 'Product', 'file', true, 'One-page marketing teaser for a product'],
  ['preexisting_subscription_agreement', 'Pre-existing subscription agreement', 'Investment', 'file', false, 'Subscription agreement provided by an issuer from outside the platform'],
  ['pitch_deck', 'Pitch deck', 'Product', 'file', true, 'Slide set expanding on the teaser'],
  ['team_member_avatar', 'Team member avatar', 'TeamMember', 'image', false, 'Avatar of a team member who is not yet a platform user', { crop: { ratio: 1, round: true } }],
  ['utility_bill', 'Utility bill', 'Accreditation', 'image', false, "Photo of an investor's utility bill, proves residency", { private: true, crop: free }],
];

export const fileTypes: readonly FileTypeInfo[] = rows.map(
  ([fileType, label, assetableType, documentType, thumbifiable, purpose, extra = {}]) => ({
    fileType,
    label,
    assetableType,
    assetableTypeIsOurs: extra.ours === true,
    documentType,
    thumbifiable,
    purpose,
    accepts: documentType === 'image' ? imageKinds : documentKinds,
    maxBytes: documentType === 'image' ? maxImageBytes : defaultMaxFileBytes,
    privateByDefault: extra.private === true,
    cropAspect: documentType === 'image' ? (extra.crop ?? free) : null,
  }),
);

const byName = new Map(fileTypes.map((t) => [t.fileType, t]));

export const findFileType = (name: string): FileTypeInfo | undefined => byName.get(name);

export const fileTypesFor = (assetableType: AssetableType) =>
  fileTypes.filter((t) => t.assetableType === assetableType);

/** The size limit of a file type: the platform's configured per-file limit, and at most 25 MB for images. */
export const maxBytesFor = (fileType: FileTypeInfo, configuredMaxFileBytes = defaultMaxFileBytes) =>
  fileType.documentType === 'image'
    ? Math.min(maxImageBytes, configuredMaxFileBytes)
    : configuredMaxFileBytes;

/**
 * react-dropzone's `accept`: MIME types with their extensions. Extensions matter: browsers often
 * give CSV and Office files no MIME type at all.
 */
export function acceptFor(fileType: FileTypeInfo): Record<string, string[]> {
  return Object.fromEntries(
    fileType.accepts.map((kind) => [contentKinds[kind].mime, contentKinds[kind].extensions]),
  );
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** What a slot accepts, in plain words: "a JPEG, PNG, WebP, GIF or AVIF image". */
export function describeAccepts(fileType: FileTypeInfo): string {
  if (fileType.documentType === 'image') return 'a JPEG, PNG, WebP, GIF or AVIF image';
  return 'a PDF, an image, an Office document (Word, Excel, PowerPoint), a CSV or a text file';
}

/**
 * Client-side check of a chosen file against a slot, before any byte is sent (the server re-checks
 * the bytes). Answers null, or the reason in plain words.
 */
export function checkFileForSlot(
  file: { name: string; size: number; type: string },
  fileType: FileTypeInfo,
  configuredMaxFileBytes = defaultMaxFileBytes,
): string | null {
  const extension = /\.[^.]+$/.exec(file.name.toLowerCase())?.[0] ?? '';
  const byMime = fileType.accepts.some((kind) => contentKinds[kind].mime === file.type);
  const byExtension = fileType.accepts.some((kind) => contentKinds[kind].extensions.includes(extension));
  if (file.type === 'image/svg+xml' || extension === '.svg' || !(byMime || byExtension)) {
    return `${file.name} is not accepted here: upload ${describeAccepts(fileType)}.`;
  }
  if (file.size === 0) return `${file.name} is empty.`;
  const limit = maxBytesFor(fileType, configuredMaxFileBytes);
  if (file.size > limit) {
    return `${file.name} is ${megabytes(file.size)}; the limit for a ${fileType.label.toLowerCase()} is ${megabytes(limit)}.`;
  }
  return null;
}
