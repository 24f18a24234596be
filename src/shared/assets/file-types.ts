import type { AssetableType } from '../api/me';

/**
 * The file-type catalog: the 19 rows of spec 2.3 and, per row, the rules our platform applies
 * (decisions.md "Assets"). The web app checks files against the same rows before sending a byte;
 * the platform re-checks the bytes themselves, so nothing here is a security boundary.
 */

// ---------------------------------------------------------------------------------------------
// Content kinds: what a file may be. The platform decides the kind from the bytes; the browser
// only knows the name and a MIME type that is often missing, so both are listed.

export type ContentKind =
  'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'csv' | 'text';

export interface ContentKindInfo {
  /** For people: "JPEG image". */
  label: string;
  /** The canonical MIME type: what the platform serves the file as. */
  mime: string;
  /** Other MIME types browsers and operating systems report for the same kind. */
  otherMimes: readonly string[];
  /** Lower case, with the dot. */
  extensions: readonly string[];
}

const officeMime = 'application/vnd.openxmlformats-officedocument';

export const contentKinds: Readonly<Record<ContentKind, ContentKindInfo>> = {
  // .jfif is what some Windows versions name JPEGs saved from a browser.
  jpeg: { label: 'JPEG image', mime: 'image/jpeg', otherMimes: [], extensions: ['.jpg', '.jpeg', '.jfif'] },
  png: { label: 'PNG image', mime: 'image/png', otherMimes: [], extensions: ['.png'] },
  webp: { label: 'WebP image', mime: 'image/webp', otherMimes: [], extensions: ['.webp'] },
  gif: { label: 'GIF image', mime: 'image/gif', otherMimes: [], extensions: ['.gif'] },
  avif: { label: 'AVIF image', mime: 'image/avif', otherMimes: [], extensions: ['.avif'] },
  pdf: { label: 'PDF document', mime: 'application/pdf', otherMimes: [], extensions: ['.pdf'] },
  docx: {
    label: 'Word document',
    mime: `${officeMime}.wordprocessingml.document`,
    otherMimes: [],
    extensions: ['.docx'],
  },
  xlsx: {
    label: 'Excel workbook',
    mime: `${officeMime}.spreadsheetml.sheet`,
    otherMimes: [],
    extensions: ['.xlsx'],
  },
  pptx: {
    label: 'PowerPoint presentation',
    mime: `${officeMime}.presentationml.presentation`,
    otherMimes: [],
    extensions: ['.pptx'],
  },
  // Windows with Excel installed reports CSV as application/vnd.ms-excel, which is also .xls: that
  // one is left out on purpose and the .csv extension lets such files through instead.
  csv: {
    label: 'CSV file',
    mime: 'text/csv',
    otherMimes: ['application/csv', 'text/x-csv'],
    extensions: ['.csv'],
  },
  text: { label: 'text file', mime: 'text/plain', otherMimes: [], extensions: ['.txt'] },
};

/** SVG is never among them: it can carry scripts, and a browser runs them when it opens the file. */
const imageKinds: readonly ContentKind[] = ['jpeg', 'png', 'webp', 'gif', 'avif'];
const fileKinds: readonly ContentKind[] = ['pdf', ...imageKinds, 'docx', 'xlsx', 'pptx', 'csv', 'text'];

// ---------------------------------------------------------------------------------------------
// Limits (decisions.md "size").

const megabyte = 1024 * 1024;
export const maxImageBytes = 25 * megabyte;
export const maxImagePixels = 100_000_000;
/** The platform's per-file limit unless its configuration lowers it. */
export const defaultMaxFileBytes = 100 * megabyte;

// ---------------------------------------------------------------------------------------------
// The rows.

/** Spec 2.3, in its order. A tuple, so that `z.enum(fileTypeNames)` works. */
export const fileTypeNames = [
  'additional_document',
  'avatar',
  'bad_actor_certification',
  'business_plan',
  'charter_document',
  'cover_image',
  'drivers_license',
  'executed_letter_of_accreditation',
  'financial_document',
  'intellectual_property',
  'investors_charter_document',
  'investors_corporate_resolution',
  'letter_of_accreditation',
  'logo',
  'one_page_teaser',
  'preexisting_subscription_agreement',
  'pitch_deck',
  'team_member_avatar',
  'utility_bill',
] as const;
export type FileTypeName = (typeof fileTypeNames)[number];

export type DocumentType = 'file' | 'image';

/** How the crop dialog frames an image. */
export interface CropAspect {
  /** width ÷ height, or null for a free crop. */
  ratio: number | null;
  /** Show a round mask (avatars are displayed in a circle); the stored crop is still a rectangle. */
  round: boolean;
}

export interface FileTypeInfo {
  fileType: FileTypeName;
  /** For people: "Driver's licence". */
  label: string;
  assetableType: AssetableType;
  /** True where spec 2.3 says "not shown" and the assetable type is our decision. */
  assetableTypeIsOurs: boolean;
  documentType: DocumentType;
  thumbifiable: boolean;
  /** What the file is for, in plain words (no final full stop: the app writes it into a sentence). */
  purpose: string;
  /** The spec's text, which `purpose` puts in plain words. */
  specPurpose: string;
  /** The slot holds one file: a new upload replaces it (see `slotSizes`). */
  singleFile: boolean;
  accepts: readonly ContentKind[];
  /** With the default configuration; use `maxBytesFor` to apply the platform's configured limit. */
  maxBytes: number;
  /** Whether a new upload starts private (the uploader can change it). */
  privateByDefault: boolean;
  /** null for file types: only images are cropped. */
  cropAspect: CropAspect | null;
}

type Row = [
  label: string,
  assetableType: AssetableType,
  documentType: DocumentType,
  thumbifiable: boolean,
  specPurpose: string,
  extra?: { ours?: true; private?: true; crop?: CropAspect },
];

const free: CropAspect = { ratio: null, round: false };
const roundSquare: CropAspect = { ratio: 1, round: true };
// The hero banner is shown wide across the landing page. 16:9 is the shape of landscape photos from
// phones and cameras and of video stills, so most uploads need little cropping; a banner-like 3:1
// would cut away most of an ordinary photo.
const wide: CropAspect = { ratio: 16 / 9, round: false };

// `ours`: the spec leaves the assetable type "not shown"; the type given is our mapping
// (decisions.md). `private`: identity and accreditation documents start private.
// prettier-ignore
const rows: Record<FileTypeName, Row> = {
  additional_document: ['Additional document', 'Investment', 'file', false, 'Documents of an investment that fit no other Investment file type'],
  avatar: ['Avatar', 'User', 'image', false, 'Graphical representation of a user', { crop: roundSquare }],
  bad_actor_certification: ['Bad actor certification', 'Investment', 'file', false, 'Document stating that a team or its members act in good faith', { ours: true }],
  business_plan: ['Business plan', 'Product', 'file', true, "A product's plan for conducting its business", { ours: true }],
  charter_document: ['Charter document', 'Product', 'file', true, "Legal filing with a US state describing the company's components and objectives", { ours: true }],
  cover_image: ['Cover image', 'Product', 'image', false, "Large hero image at the top of an investment's landing page", { crop: wide }],
  drivers_license: ["Driver's licence", 'Accreditation', 'image', false, "Investor's driver's license, proves residency, needed for certain investment types", { private: true, crop: free }],
  executed_letter_of_accreditation: ['Executed letter of accreditation', 'Accreditation', 'file', false, "Letter executed by an attorney verifying an investor's accreditation status", { ours: true, private: true }],
  financial_document: ['Financial document', 'Investment', 'file', true, 'Company financials for a year or set of years'],
  intellectual_property: ['Intellectual property document', 'Investment', 'file', true, 'Document describing intellectual property held by the company, likely a patent'],
  investors_charter_document: ["Investor's charter document", 'IndicationOfInterest', 'file', false, 'Charter document giving an investor the right to act for a company'],
  investors_corporate_resolution: ["Investor's corporate resolution", 'IndicationOfInterest', 'file', false, 'Purpose: to be determined in the interface'],
  letter_of_accreditation: ['Letter of accreditation', 'Accreditation', 'file', false, 'Letter from an investor verifying accreditation', { private: true }],
  logo: ['Logo', 'Product', 'image', false, "A product's logo", { crop: free }],
  one_page_teaser: ['One-page teaser', 'Product', 'file', true, 'One-page marketing teaser for a product'],
  preexisting_subscription_agreement: ['Pre-existing subscription agreement', 'Investment', 'file', false, 'Subscription agreement provided by an issuer from outside the platform'],
  pitch_deck: ['Pitch deck', 'Product', 'file', true, 'Slide set expanding on the teaser'],
  team_member_avatar: ['Team member avatar', 'TeamMember', 'image', false, 'Avatar of a team member who is not yet a platform user', { crop: roundSquare }],
  utility_bill: ['Utility bill', 'Accreditation', 'image', false, "Photo of an investor's utility bill, proves residency", { private: true, crop: free }],
};

/**
 * The spec's purposes in words the people who upload and review understand: the spec's texts lean
 * on jargon ("hero image", "executed", "bad actor"), and one is a placeholder ("Purpose: to be
 * determined in the interface"). A product here is what investors are offered a stake in.
 */
// prettier-ignore
const purposes: Record<FileTypeName, string> = {
  additional_document: 'Any other document about the investment that fits none of the other kinds of file',
  avatar: "The picture shown next to the user's name",
  bad_actor_certification: 'A signed statement that neither the company nor the people who run it have a past offence, such as securities fraud, that bars them from raising money',
  business_plan: 'How the company behind the product plans to run its business and make money',
  charter_document: "The company's founding document filed with a US state, such as its articles of incorporation, saying what the company is and what it is for",
  cover_image: "The large, wide picture across the top of the product's page",
  drivers_license: "Photos of the investor's driver's licence, front and back, to prove where they live; some investments require it",
  executed_letter_of_accreditation: 'The letter, signed by a lawyer, confirming that the investor is accredited',
  financial_document: "The company's financial statements for one year or several",
  intellectual_property: 'A patent or another document about inventions, designs or brands the company owns',
  investors_charter_document: "When the investor invests for a company: that company's charter, showing that the investor may act for it",
  investors_corporate_resolution: 'When the investor invests for a company: the decision of its board or owners that approves this investment and says who may sign for the company',
  letter_of_accreditation: 'A letter confirming that the investor is accredited: that their income or wealth lets them take part in private investments',
  logo: "The product's logo",
  one_page_teaser: 'A one-page summary that introduces the product to investors',
  preexisting_subscription_agreement: 'A subscription agreement (the contract an investor signs to buy in) that the issuer already has from outside this platform',
  pitch_deck: "The presentation slides that tell the product's story in more detail than the teaser",
  team_member_avatar: "The picture shown next to the team member's name",
  utility_bill: "A photo of a utility bill (electricity, gas or water) in the investor's name, to prove where they live",
};

/**
 * How many files each slot holds. `one`: a new upload replaces the file there; the web app uploads
 * the new file and deletes the old one only once the new one is stored, so it works on any
 * platform, and our platform does not refuse a second file (a replace cut short leaves two; the
 * newest is the one in use). When in doubt a slot holds several: a wrong "one" makes people delete
 * a file someone needed, a wrong "several" only lets files stack up.
 */
const slotSizes: Record<FileTypeName, 'one' | 'several'> = {
  // By definition whatever else there is.
  additional_document: 'several',
  // A person is shown with one picture.
  avatar: 'one',
  // The company and each person who runs it may each sign one.
  bad_actor_certification: 'several',
  // A product has one plan: a new version replaces the old one.
  business_plan: 'one',
  // Articles of incorporation come with amendments filed later.
  charter_document: 'several',
  // A page has one cover.
  cover_image: 'one',
  // A licence has a front and a back.
  drivers_license: 'several',
  // One lawyer's letter confirms the accreditation; a newer one replaces it.
  executed_letter_of_accreditation: 'one',
  // One per year or period.
  financial_document: 'several',
  // One per patent, design or trademark.
  intellectual_property: 'several',
  // A charter with its amendments, as charter_document.
  investors_charter_document: 'several',
  // A resolution may come with papers that back it (who holds which office); in doubt, several.
  investors_corporate_resolution: 'several',
  // One letter per accreditation (a letter of several pages is one PDF); answering a rejection
  // replaces it, so reviewers see the letter to judge, and the history keeps the old one's name.
  letter_of_accreditation: 'one',
  // A product is shown with one logo.
  logo: 'one',
  // One page, by its name: the current one.
  one_page_teaser: 'one',
  // One per subscriber who signed outside the platform.
  preexisting_subscription_agreement: 'several',
  // A product has one current deck: a new version replaces the old one.
  pitch_deck: 'one',
  // A person is shown with one picture.
  team_member_avatar: 'one',
  // A bill may run over several pages, each a photo.
  utility_bill: 'several',
};

export const fileTypes: readonly FileTypeInfo[] = fileTypeNames.map((fileType) => {
  const [label, assetableType, documentType, thumbifiable, specPurpose, extra = {}] = rows[fileType];
  const image = documentType === 'image';
  return {
    fileType,
    label,
    assetableType,
    assetableTypeIsOurs: extra.ours === true,
    documentType,
    thumbifiable,
    purpose: purposes[fileType],
    specPurpose,
    singleFile: slotSizes[fileType] === 'one',
    accepts: image ? imageKinds : fileKinds,
    maxBytes: image ? maxImageBytes : defaultMaxFileBytes,
    privateByDefault: extra.private === true,
    cropAspect: image ? (extra.crop ?? free) : null,
  };
});

const byName = new Map<string, FileTypeInfo>(fileTypes.map((t) => [t.fileType, t]));

export const isFileTypeName = (name: string): name is FileTypeName => byName.has(name);

/** undefined for a name the catalog does not know (a typo, or a type of another platform). */
export const findFileType = (name: string): FileTypeInfo | undefined => byName.get(name);

/**
 * The slots of every entity in the order of the job, most looked-at first (the spec lists them
 * alphabetically): a product is recognised by its logo and cover before anyone reads its
 * charter; an accreditation starts with the letter it is about; a catch-all comes last.
 */
const slotOrder: readonly FileTypeName[] = [
  // Product
  'logo',
  'cover_image',
  'pitch_deck',
  'one_page_teaser',
  'business_plan',
  'charter_document',
  // Investment
  'financial_document',
  'preexisting_subscription_agreement',
  'intellectual_property',
  'bad_actor_certification',
  'additional_document',
  // Accreditation
  'letter_of_accreditation',
  'executed_letter_of_accreditation',
  'drivers_license',
  'utility_bill',
  // IndicationOfInterest
  'investors_corporate_resolution',
  'investors_charter_document',
  // User, TeamMember
  'avatar',
  'team_member_avatar',
];

/** The slots of an entity, in the order of the job (`slotOrder`). */
export const fileTypesFor = (assetableType: AssetableType): FileTypeInfo[] =>
  slotOrder.map((name) => byName.get(name)!).filter((t) => t.assetableType === assetableType);

type FileTypeRef = FileTypeName | FileTypeInfo;
function resolve(ref: FileTypeRef): FileTypeInfo {
  if (typeof ref !== 'string') return ref;
  const found = byName.get(ref);
  // Only reachable from untyped callers: a FileTypeName is always in the catalog.
  if (!found) throw new Error(`Unknown file type: ${ref}`);
  return found;
}

/**
 * A label for people. Takes any string because assets from the API may carry a file type this
 * catalog does not know; those get their name with the underscores taken out.
 */
export function labelOf(fileType: string): string {
  const known = byName.get(fileType);
  if (known) return known.label;
  const words = fileType.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The size limit of a file type: the platform's configured per-file limit, and at most 25 MB for images. */
export function maxBytesFor(fileType: FileTypeRef, configuredMaxFileBytes = defaultMaxFileBytes): number {
  return resolve(fileType).documentType === 'image'
    ? Math.min(maxImageBytes, configuredMaxFileBytes)
    : configuredMaxFileBytes;
}

/**
 * react-dropzone's `accept` (MIME type → extensions). Extensions matter: browsers often give CSV
 * and Office files no MIME type at all, and react-dropzone then matches on the name.
 */
export function acceptFor(fileType: FileTypeRef): Record<string, string[]> {
  const accept: Record<string, string[]> = {};
  for (const kind of resolve(fileType).accepts) {
    const { mime, otherMimes, extensions } = contentKinds[kind];
    for (const type of [mime, ...otherMimes]) accept[type] = [...extensions];
  }
  return accept;
}

/** What a slot takes, in plain words, to finish "upload …". */
export function describeAccepts(fileType: FileTypeRef): string {
  return resolve(fileType).documentType === 'image'
    ? 'a JPEG, PNG, WebP, GIF or AVIF image'
    : 'a PDF, image, Office document, CSV or text file';
}

/**
 * What a slot says under its name: what the file is for, what it takes and how it behaves. The same
 * words in the app's slot (asset-slot.tsx) and in the outline of an entity page that the proxy paints
 * before the app has loaded (src/proxy/index-page.ts), so that nothing changes when the app takes over.
 */
export function slotHint(fileType: FileTypeInfo): string {
  const limit = `${Math.floor(maxBytesFor(fileType) / megabyte)} MB`;
  return (
    `${fileType.purpose}. Accepts ${describeAccepts(fileType)} up to ${limit}` +
    `${fileType.privateByDefault ? '; private when uploaded' : ''}.` +
    (fileType.singleFile ? ' Holds one file: a new upload replaces it.' : '')
  );
}

// Rounded up for the file and down for the limit, so that a file just over the limit never reads
// "25 MB; the limit … is 25 MB".
const sizeOfFile = (bytes: number) => `${Math.ceil((bytes / megabyte) * 10) / 10} MB`;
const sizeOfLimit = (bytes: number) => `${Math.floor((bytes / megabyte) * 10) / 10} MB`;

// By sound, not spelling: "an avatar" but "a one-page teaser", "a utility bill". The tests check
// the article for every label.
const withArticle = (label: string) => `${/^[aei]/i.test(label) ? 'an' : 'a'} ${label.toLowerCase()}`;

const extensionOf = (name: string) => /\.[^.]*$/.exec(name.toLowerCase())?.[0] ?? '';

/**
 * Checks a chosen file against a slot before any byte is sent, like Uppy's Restricter: null when
 * it may go, otherwise the reason in plain words. The browser's MIME type and the file's extension
 * are each enough, because either is often missing or generic (CSV on Windows, Office files); the
 * platform judges the bytes anyway. Pass the platform's configured per-file limit when known.
 */
export function checkFileForSlot(
  file: { name: string; size: number; type: string },
  fileType: FileTypeRef,
  configuredMaxFileBytes = defaultMaxFileBytes,
): string | null {
  const slot = resolve(fileType);
  const extension = extensionOf(file.name);
  const mime = file.type.toLowerCase();

  if (mime.startsWith('image/svg') || extension === '.svg' || extension === '.svgz') {
    return `${file.name} is not accepted here: SVG images are not supported; upload ${describeAccepts(slot)}.`;
  }
  const kinds = slot.accepts.map((kind) => contentKinds[kind]);
  const byMime = kinds.some((k) => k.mime === mime || k.otherMimes.includes(mime));
  const byExtension = kinds.some((k) => k.extensions.includes(extension));
  if (!byMime && !byExtension) {
    return `${file.name} is not accepted here: upload ${describeAccepts(slot)}.`;
  }

  if (file.size === 0) return `${file.name} is empty.`;
  const limit = maxBytesFor(slot, configuredMaxFileBytes);
  if (file.size > limit) {
    return `${file.name} is ${sizeOfFile(file.size)}; the limit for ${withArticle(slot.label)} is ${sizeOfLimit(limit)}.`;
  }
  return null;
}

/**
 * The pixel limit, once the web app knows an image's dimensions (the crop dialog reads them).
 * null, or the reason in plain words.
 */
export function checkImagePixels(name: string, image: { width: number; height: number }): string | null {
  const pixels = image.width * image.height;
  if (pixels <= maxImagePixels) return null;
  const megapixels = Math.ceil(pixels / 100_000) / 10;
  return `${name} is ${megapixels} megapixels; images may have at most ${maxImagePixels / 1_000_000} megapixels.`;
}
