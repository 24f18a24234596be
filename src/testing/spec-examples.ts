/**
 * The spec's example shapes (platform-api.md), written once for the three platform doubles: the web
 * app's MSW double (src/web/testing/platform-double.ts), the proxy's fake platform
 * (src/proxy/testing/fake-platform.ts) and the spec-only platform of the end-to-end tests
 * (e2e/support/spec-only-platform.ts). Each double builds its answers from these, and its own test
 * compares what it answers with them (`shapeOf`), so a contract change is made here and a double left
 * behind fails its test; spec-examples.test.ts holds these against the repository's zod schemas.
 *
 * Libraries only, nothing of ours: the spec-only platform reads the spec, not our code, and this file
 * is the spec transcribed. Where the spec says "not shown", the shapes are the ones
 * docs/platform-contract.md says the app reads, each marked as such.
 */

// ---- Spec 2.3: the file types ----

/** "Allowed assetable_type values seen in the list" (spec 2.3), in the spec's order. */
export const specAssetableTypes = [
  'Investment',
  'User',
  'Product',
  'Accreditation',
  'IndicationOfInterest',
  'TeamMember',
] as const;
export type SpecAssetableType = (typeof specAssetableTypes)[number];

export interface SpecFileType {
  /** null where spec 2.3 says "not shown". */
  assetableType: SpecAssetableType | null;
  documentType: 'file' | 'image';
  thumbifiable: boolean;
  /** The spec's Purpose column, word for word. */
  purpose: string;
}

const row = (
  assetableType: SpecAssetableType | null,
  documentType: 'file' | 'image',
  thumbifiable: boolean,
  purpose: string,
): SpecFileType => ({ assetableType, documentType, thumbifiable, purpose });

/** Spec 2.3, all 19 rows, in the spec's order. */
export const specFileTypes: Readonly<Record<string, SpecFileType>> = {
  additional_document: row(
    'Investment',
    'file',
    false,
    'Documents of an investment that fit no other Investment file type',
  ),
  avatar: row('User', 'image', false, 'Graphical representation of a user'),
  bad_actor_certification: row(
    null,
    'file',
    false,
    'Document stating that a team or its members act in good faith',
  ),
  business_plan: row(null, 'file', true, "A product's plan for conducting its business"),
  charter_document: row(
    null,
    'file',
    true,
    "Legal filing with a US state describing the company's components and objectives",
  ),
  cover_image: row('Product', 'image', false, "Large hero image at the top of an investment's landing page"),
  drivers_license: row(
    'Accreditation',
    'image',
    false,
    "Investor's driver's license, proves residency, needed for certain investment types",
  ),
  executed_letter_of_accreditation: row(
    null,
    'file',
    false,
    "Letter executed by an attorney verifying an investor's accreditation status",
  ),
  financial_document: row('Investment', 'file', true, 'Company financials for a year or set of years'),
  intellectual_property: row(
    'Investment',
    'file',
    true,
    'Document describing intellectual property held by the company, likely a patent',
  ),
  investors_charter_document: row(
    'IndicationOfInterest',
    'file',
    false,
    'Charter document giving an investor the right to act for a company',
  ),
  investors_corporate_resolution: row(
    'IndicationOfInterest',
    'file',
    false,
    'Purpose: to be determined in the interface',
  ),
  letter_of_accreditation: row(
    'Accreditation',
    'file',
    false,
    'Letter from an investor verifying accreditation',
  ),
  logo: row('Product', 'image', false, "A product's logo"),
  one_page_teaser: row('Product', 'file', true, 'One-page marketing teaser for a product'),
  preexisting_subscription_agreement: row(
    'Investment',
    'file',
    false,
    'Subscription agreement provided by an issuer from outside the platform',
  ),
  pitch_deck: row('Product', 'file', true, 'Slide set expanding on the teaser'),
  team_member_avatar: row(
    'TeamMember',
    'image',
    false,
    'Avatar of a team member who is not yet a platform user',
  ),
  utility_bill: row('Accreditation', 'image', false, "Photo of an investor's utility bill, proves residency"),
};

// ---- Spec 2.1 and 4.2: the token answer ----

/** Spec 2.1: the flat token object (no envelope) the token endpoint answers. */
export interface SpecTokenAnswer {
  token_type: 'bearer';
  access_token: string;
  refresh_token: string;
}

export const tokenAnswer = (accessToken: string, refreshToken: string): SpecTokenAnswer => ({
  token_type: 'bearer',
  access_token: accessToken,
  refresh_token: refreshToken,
});

/** Spec 4.2's JSON body, exactly these fields (the grant is in the query). */
export const tokenRequestFields = ['client_id', 'client_secret', 'code', 'state'] as const;

// ---- Spec 2.2 and 4.3–4.5: the Asset ----

/** Spec 2.2: an Asset's fields. `thumbnail_id` only "when a thumbnail can be made". */
export interface SpecAsset {
  id: number;
  name: string;
  file_type: string;
  assetable: { type: SpecAssetableType; id: number };
  key: string;
  meta: Record<string, unknown>;
  private: boolean;
  thumbifiable: boolean;
  thumbnail_id?: string;
}

/** One Asset as spec 2.2 shows it: a product's logo (2.3: Product, image, not thumbifiable). */
export const exampleAsset: Readonly<SpecAsset> = {
  id: 11,
  name: 'logo.png',
  file_type: 'logo',
  assetable: { type: 'Product', id: 7 },
  key: 'k-11',
  meta: {},
  private: false,
  thumbifiable: false,
};

/** A thumbifiable one with its thumbnail (spec 4.3: "the response carries thumbnail_id"). */
export const exampleThumbnailedAsset: Readonly<SpecAsset> = {
  ...exampleAsset,
  id: 12,
  name: 'deck.pdf',
  file_type: 'pitch_deck',
  key: 'k-12',
  thumbifiable: true,
  thumbnail_id: '13',
};

/**
 * Spec 2.2's fields of `asset` and no others, `thumbifiable` from the file type's row of 2.3: what a
 * platform that implements only the spec answers, whatever else it keeps.
 */
export function specAssetOf(asset: Omit<SpecAsset, 'thumbifiable'>): SpecAsset {
  const fields: SpecAsset = {
    id: asset.id,
    name: asset.name,
    file_type: asset.file_type,
    assetable: asset.assetable,
    key: asset.key,
    meta: asset.meta,
    private: asset.private,
    thumbifiable: specFileTypes[asset.file_type]?.thumbifiable ?? false,
  };
  return asset.thumbnail_id === undefined ? fields : { ...fields, thumbnail_id: asset.thumbnail_id };
}

/** Spec 4.3 (201) and 4.4: "an object with the single key `asset`". */
export const assetAnswer = <A>(asset: A) => ({ asset });

/** Spec 4.5: one field, `url`, absolute and time-limited. */
export const downloadUrlAnswer = (url: string) => ({ url });

/** Spec 4.6's body: `asset` holding any of these three. */
export const updatableAssetFields = ['private', 'name', 'meta'] as const;

// ---- Not shown by the spec: the shapes docs/platform-contract.md says the app reads ----

/**
 * Spec 4: an entity "either sideloads [its assets] in its own response or gives a URL for them in the
 * `links` hash"; the shape is not shown. These are the three the app reads (platform-contract.md,
 * "entity reads"), keyed by the entity's singular name (`product`).
 */
export const entityAnswers = {
  /** The assets inside the entity object. */
  sideloaded: <A>(singular: string, entity: object, assets: A[]) => ({
    [singular]: { ...entity, assets },
  }),
  /** The assets beside the entity, at the top level (our platform's shape, decisions.md). */
  topLevel: <A>(singular: string, entity: object, assets: A[]) => ({ [singular]: entity, assets }),
  /** Only a link; `assetListAnswers` is what the link answers. */
  linksOnly: (singular: string, entity: object, assetsUrl: string) => ({
    [singular]: { ...entity, links: { assets: assetsUrl } },
  }),
};

/** What a `links.assets` address answers: `{"assets": […]}` or a bare array. */
export const assetListAnswers = {
  envelope: <A>(assets: A[]) => ({ assets }),
  array: <A>(assets: A[]) => assets,
};

/** Our platform's page of an entity's assets: the envelope with `next_cursor`, null on the last page. */
export const assetPageAnswer = <A>(assets: A[], nextCursor: string | null = null) => ({
  assets,
  next_cursor: nextCursor,
});

/** Errors are not shown (spec 7). RFC 6749 5.2's body, which token endpoints answer by convention. */
export const oauthErrorAnswer = (error: string, description?: string) =>
  description === undefined ? { error } : { error, error_description: description };

/** A Rails API's conventional error body, what a spec-only platform answers (platform-contract.md). */
export const railsErrorAnswer = (messages: string[]) => ({ errors: messages });

/** The titles our platform gives its problems: the status's reason phrase (RFC 9110). */
const reasonPhrases: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/** Our platform's errors: RFC 9457 problem details with a `code` (decisions.md). */
export const problemAnswer = (
  status: number,
  code: string,
  extra: { title?: string; detail?: string; errors?: { field: string; message: string }[] } = {},
) => ({ type: 'about:blank', title: reasonPhrases[status] ?? 'Error', status, code, ...extra });

// ---- Comparing a double's answer with an example ----

/** The shape of a JSON value: its keys and the JSON type at each, an array's by its first item. */
export type Shape = string | Shape[] | { [key: string]: Shape };

/**
 * `value` with every leaf replaced by its JSON type, so that two answers with the same fields of the
 * same types compare equal whatever their values. An array's shape is its first item's (an empty one
 * is `[]`): the examples list items of one kind.
 */
export function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, shapeOf(child)]));
  }
  return typeof value;
}
