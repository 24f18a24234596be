import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accreditationListSchema,
  accreditationSchema,
  historySchema,
  type HistoryEntry,
} from '../../shared/api/accreditations';
import { meSchema } from '../../shared/api/me';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { type DB, dialectOf, openDatabase } from '../db/database';
import type { RejectionReason } from '../../shared/api/review';
import { jpeg, multipartBody, pdf, sha256 } from '../testing/files';
import {
  bearer,
  demoPassword,
  startPlatform,
  type TestPlatform,
  tokensFor,
} from '../testing/platform-server';
import { createUser } from '../security/accounts';

let platform: TestPlatform;
/** A second connection to the platform's database, as a script or a person with sqlite3 would have. */
let db: DB;
let investor: string;
let investorId: number;
let otherInvestor: string;
let admin: string;
let secondAdmin: string;

beforeAll(async () => {
  platform = await startPlatform();
  db = await openDatabase(platform.config);
  const password = demoPassword;
  await createUser(db, { email: 'other@demo.test', role: 'investor', password, name: 'Otto Other' });
  await createUser(db, { email: 'admin2@demo.test', role: 'admin', password, name: 'Abe Admin' });
  investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  otherInvestor = (await tokensFor(platform, 'other@demo.test')).access_token;
  admin = (await tokensFor(platform, 'admin@demo.test')).access_token;
  secondAdmin = (await tokensFor(platform, 'admin2@demo.test')).access_token;
  const owner = db.selectFrom('users').select('id').where('email', '=', 'investor@demo.test');
  investorId = (await owner.executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  await db.destroy();
  await platform.close();
});

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, {
    ...init,
    headers: { ...bearer(token), ...(init.headers as Record<string, string>) },
  });

/**
 * A fresh accreditation of the demo investor, so that each test starts from its own: waiting for
 * its documents as a new one does, or (`sent`) in the queue as if its investor had sent it.
 */
async function newAccreditation(name = 'Accreditation under test', sent = true) {
  const { id } = await db
    .insertInto('accreditations')
    .values({
      owner_id: investorId,
      name,
      status: sent ? 'pending' : 'documents_needed',
      submitted_at: sent ? Date.now() : null,
      created_at: Date.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

async function read(id: number, token = investor) {
  const response = await api(`/v2/core/accreditations/${id}`, token);
  expect(response.status).toBe(200);
  return accreditationSchema.parse(((await response.json()) as { accreditation: unknown }).accreditation);
}

function update(
  id: number,
  accreditation: Record<string, unknown>,
  token = investor,
  headers: Record<string, string> = {},
) {
  return api(`/v2/core/accreditations/${id}`, token, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ accreditation }),
  });
}

type DecisionBody = { status: 'approved' } | { status: 'rejected'; reason: RejectionReason; note?: string };

function decide(
  id: number,
  decision: DecisionBody | { status: 'approved'; note?: string },
  token = admin,
  headers: Record<string, string> = {},
) {
  return update(id, decision, token, headers);
}

const sendForReview = (id: number, token = investor, headers: Record<string, string> = {}) =>
  update(id, { status: 'pending' }, token, headers);

async function problem(response: Response, status: number) {
  expect(response.status, await response.clone().text()).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await response.json()) as { code: string; detail: string; errors?: { field: string }[] };
}

async function upload(
  id: number,
  fileType = 'letter_of_accreditation',
  name = 'letter.pdf',
  token = investor,
  fields: Record<string, string> = {},
): Promise<Asset> {
  const bytes = fileType === 'letter_of_accreditation' ? await pdf('Letter') : await jpeg(64, 48);
  return uploadBytes(id, fileType, name, bytes, token, fields);
}

async function uploadBytes(
  id: number,
  fileType: string,
  name: string,
  bytes: Uint8Array,
  token = investor,
  fields: Record<string, string> = {},
): Promise<Asset> {
  const response = await api('/v2/core/assets', token, {
    method: 'POST',
    body: multipartBody(
      { file_type: fileType, assetable_type: 'Accreditation', assetable_id: String(id), ...fields },
      { name, bytes },
    ),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

/** What "Send for review" needs: a letter and one photo of both sides of the licence. */
async function addRequiredFiles(id: number) {
  const letter = await upload(id, 'letter_of_accreditation', 'letter.pdf');
  const licence = await upload(id, 'drivers_license', 'licence.jpg', investor, { meta: '{"side":"both"}' });
  return { letter, licence };
}

function changeFile(asset: Asset, changes: Record<string, unknown>) {
  return api(`/v2/core/assets/${asset.id}`, investor, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ asset: changes }),
  });
}

const deleteFile = (assetId: number | string, token = investor) =>
  api(`/v2/core/assets/${assetId}`, token, { method: 'DELETE' });

async function history(id: number, token = investor, query = ''): Promise<HistoryEntry[]> {
  const response = await api(`/v2/core/accreditations/${id}/history${query}`, token);
  expect(response.status, await response.clone().text()).toBe(200);
  return historySchema.parse(await response.json()).history;
}

async function list(status: string, query = '') {
  const response = await api(`/v2/core/accreditations?status=${status}${query}`, admin);
  expect(response.status, await response.clone().text()).toBe(200);
  return accreditationListSchema.parse(await response.json());
}

const idsIn = async (status: string, query = '') =>
  (await list(status, `&limit=100${query}`)).accreditations.map((a) => a.id);

describe('an accreditation read by its owner', () => {
  it('starts waiting for its documents, saying what it needs', async () => {
    const id = await newAccreditation('New one', false);
    const accreditation = await read(id);
    expect(accreditation).toMatchObject({
      status: 'documents_needed',
      review_note: null,
      review_reason: null,
      reviewed_at: null,
      reviewed_by: null,
      last_decision: null,
      submitted_at: null,
      address_on_licence: true,
      links: {
        assets: `/v2/core/accreditations/${id}/assets`,
        history: `/v2/core/accreditations/${id}/history`,
      },
    });
    expect(accreditation.requirements).toEqual([
      {
        kind: 'accreditation_letter',
        file_types: ['letter_of_accreditation', 'executed_letter_of_accreditation'],
        min_files: 1,
        met: false,
      },
      { kind: 'drivers_license', file_types: ['drivers_license'], min_files: 2, met: false },
    ]);
    await upload(id, 'executed_letter_of_accreditation', 'executed.pdf');
    await upload(id, 'drivers_license', 'front.jpg', investor, { meta: '{"side":"front"}' });
    expect((await read(id)).requirements.map((r) => [r.kind, r.met])).toEqual([
      ['accreditation_letter', true],
      ['drivers_license', false],
    ]);
    await upload(id, 'drivers_license', 'back.jpg', investor, { meta: '{"side":"back"}' });
    expect((await read(id)).requirements.every((r) => r.met)).toBe(true);
  });

  it("shows once decided the reviewer's reason, note, when and who, and the decision", async () => {
    const id = await newAccreditation();
    const before = Date.now();
    const answer = await decide(id, {
      status: 'rejected',
      reason: 'unsigned',
      note: 'The letter is not signed.',
    });
    expect(answer.status).toBe(200);
    const answered = accreditationSchema.parse(
      ((await answer.json()) as { accreditation: unknown }).accreditation,
    );
    const decided = await read(id);
    expect(decided).toEqual(answered);
    expect(decided).toMatchObject({
      status: 'rejected',
      review_reason: 'unsigned',
      review_note: 'The letter is not signed.',
      reviewed_by: { name: 'Ada Admin' },
      last_decision: {
        status: 'rejected',
        reason: 'unsigned',
        note: 'The letter is not signed.',
        by: { name: 'Ada Admin' },
        file_ids: [],
      },
    });
    expect(decided.last_decision!.at).toBe(decided.reviewed_at);
    expect(decided.last_decision!.history_id).toBe((await history(id))[0]!.id);
    expect(Date.parse(decided.reviewed_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(decided.reviewed_at!)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('is not found by another investor, nor its history, nor can they send it', async () => {
    const id = await newAccreditation();
    expect((await api(`/v2/core/accreditations/${id}`, otherInvestor)).status).toBe(404);
    await problem(await api(`/v2/core/accreditations/${id}/history`, otherInvestor), 404);
    await problem(await sendForReview(id, otherInvestor), 404);
  });
});

describe('Send for review', () => {
  it('is refused while requirements are unmet, naming each', async () => {
    const id = await newAccreditation('Incomplete', false);
    const refused = await problem(await sendForReview(id), 422);
    expect(refused.code).toBe('validation_failed');
    expect(refused.errors!.map((e) => e.field)).toEqual([
      'requirements.accreditation_letter',
      'requirements.drivers_license',
    ]);
    await upload(id, 'letter_of_accreditation');
    const still = await problem(await sendForReview(id), 422);
    expect(still.errors!.map((e) => e.field)).toEqual(['requirements.drivers_license']);
    expect(still.detail).toMatch(/both sides/);
    expect((await read(id)).status).toBe('documents_needed');
    expect((await history(id)).map((e) => e.action)).toEqual(['file_uploaded']);
  });

  it('puts it in the queue from now on; sending it again changes nothing', async () => {
    const id = await newAccreditation('Complete', false);
    await addRequiredFiles(id);
    const before = await read(id);
    const sent = await sendForReview(id);
    expect(sent.status).toBe(200);
    const accreditation = await read(id);
    expect(accreditation.status).toBe('pending');
    expect(sent.headers.get('etag')).toBe(accreditation.etag);
    expect(accreditation.etag).not.toBe(before.etag);
    expect(Math.abs(Date.parse(accreditation.submitted_at!) - Date.now())).toBeLessThan(60_000);
    expect(await idsIn('pending')).toContain(id);
    expect(await idsIn('documents_needed')).not.toContain(id);
    const entries = await history(id);
    expect(entries[0]).toMatchObject({ action: 'submitted', actor: { name: 'Ivy Investor' }, reason: null });
    expect(entries[0]!.files).toBeUndefined();

    expect((await sendForReview(id)).status).toBe(200);
    expect(await read(id)).toEqual(accreditation);
    expect((await history(id)).length).toBe(entries.length);
  });

  it('honours If-Match, and needs the full scope', async () => {
    const id = await newAccreditation('Stale send', false);
    const seen = await read(id);
    await addRequiredFiles(id);
    await update(id, { address_on_licence: false });
    // Its answers changed since `seen`: the send is refused, nothing changes.
    expect((await problem(await sendForReview(id, investor, { 'if-match': seen.etag }), 412)).code).toBe(
      'precondition_failed',
    );
    await update(id, { address_on_licence: true });
    const basic = (await tokensFor(platform, 'investor@demo.test', 'basic')).access_token;
    expect((await problem(await sendForReview(id, basic), 403)).code).toBe('insufficient_scope');
    expect((await read(id)).status).toBe('documents_needed');
    const current = await read(id);
    expect((await sendForReview(id, investor, { 'if-match': current.etag })).status).toBe(200);
  });

  it('is the owner’s: an admin sending it, or answering for the investor, is refused', async () => {
    const id = await newAccreditation('Not the admin’s', false);
    await problem(await sendForReview(id, admin), 403);
    await problem(await update(id, { address_on_licence: false }, admin), 403);
    // Not even with a decision beside it.
    await problem(await update(id, { status: 'approved', address_on_licence: false }, admin), 403);
    expect(await read(id)).toMatchObject({ status: 'documents_needed', address_on_licence: true });
    // Nothing to change, or a field the contract does not have, is no request.
    expect((await problem(await update(id, {}), 422)).errors!.map((e) => e.field)).toEqual(['accreditation']);
    expect((await problem(await update(id, { status: 'pending', colour: 'red' }), 422)).code).toBe(
      'validation_failed',
    );
  });
});

describe('the address on the licence', () => {
  it('asks for a utility bill when the licence does not show it, and says so in the history', async () => {
    const id = await newAccreditation('Moved house', false);
    await addRequiredFiles(id);
    const answered = await update(id, { address_on_licence: false });
    expect(answered.status).toBe(200);
    const accreditation = await read(id);
    expect(accreditation.address_on_licence).toBe(false);
    expect(accreditation.requirements.at(-1)).toEqual({
      kind: 'utility_bill',
      file_types: ['utility_bill'],
      min_files: 1,
      met: false,
    });
    expect((await problem(await sendForReview(id), 422)).errors!.map((e) => e.field)).toEqual([
      'requirements.utility_bill',
    ]);
    await upload(id, 'utility_bill', 'bill.jpg');
    // Both in one request: the answer, then the send.
    expect((await update(id, { address_on_licence: false, status: 'pending' })).status).toBe(200);
    expect((await read(id)).status).toBe('pending');
    expect((await history(id)).map((e) => e.action).slice(0, 3)).toEqual([
      'submitted',
      'file_uploaded',
      'address_changed',
    ]);
  });

  it('cannot change while waiting for a decision', async () => {
    const id = await newAccreditation();
    const refused = await problem(await update(id, { address_on_licence: false }), 409);
    expect(refused.code).toBe('in_review');
    expect(refused.detail).toMatch(/waiting for a decision/);
    expect((await read(id)).address_on_licence).toBe(true);
    // The same answer again is no change, so no conflict.
    expect((await update(id, { address_on_licence: true })).status).toBe(200);
  });

  it('reopens a decided accreditation: its requirements changed', async () => {
    const id = await newAccreditation();
    await decide(id, { status: 'approved' });
    expect((await update(id, { address_on_licence: false })).status).toBe(200);
    const reopened = await read(id);
    expect(reopened).toMatchObject({
      status: 'documents_needed',
      address_on_licence: false,
      review_note: null,
      reviewed_at: null,
      last_decision: { status: 'approved' },
    });
    expect((await history(id)).map((e) => e.action)).toEqual(['reopened', 'address_changed', 'approved']);
  });
});

describe('a decided accreditation answered by an upload', () => {
  it('goes back to waiting for documents, keeps its last decision, and the history says why', async () => {
    const id = await newAccreditation();
    await decide(id, { status: 'rejected', reason: 'unsigned', note: 'Upload a signed letter.' });
    expect(await idsIn('pending')).not.toContain(id);

    await upload(id, 'letter_of_accreditation', 'signed letter.pdf');
    expect(await read(id)).toMatchObject({
      status: 'documents_needed',
      review_note: null,
      review_reason: null,
      reviewed_at: null,
      reviewed_by: null,
      last_decision: { status: 'rejected', reason: 'unsigned', note: 'Upload a signed letter.' },
    });
    expect(await idsIn('pending')).not.toContain(id);
    expect(await idsIn('documents_needed')).toContain(id);
    const entries = await history(id);
    expect(entries.map((e) => e.action)).toEqual(['reopened', 'file_uploaded', 'rejected']);
    expect(entries[0]!.actor.name).toBe('Ivy Investor');
    expect(entries[1]!.file).toMatchObject({
      name: 'signed letter.pdf',
      file_type: 'letter_of_accreditation',
    });
    expect(entries[2]).toMatchObject({
      note: 'Upload a signed letter.',
      reason: 'unsigned',
      actor: { name: 'Ada Admin', role: 'admin' },
    });
  });

  it('does the same after an approval, and keeps waiting when it was waiting', async () => {
    const approved = await newAccreditation();
    await decide(approved, { status: 'approved' });
    await upload(approved);
    expect((await read(approved)).status).toBe('documents_needed');
    const pending = await newAccreditation();
    await upload(pending);
    expect((await read(pending)).status).toBe('pending');
    expect((await history(pending)).map((e) => e.action)).toEqual(['file_uploaded']);
    const incomplete = await newAccreditation('Incomplete', false);
    await upload(incomplete);
    expect((await history(incomplete)).map((e) => e.action)).toEqual(['file_uploaded']);
  });
});

describe('the investor’s /me', () => {
  it('says where each of their accreditations stands, as sends, decisions and uploads change it', async () => {
    const id = await newAccreditation('Seen in /me', false);
    const statusInMe = async () => {
      const me = meSchema.parse(await (await api('/v2/core/me', investor)).json());
      return me.entities.find((e) => e.type === 'Accreditation' && e.id === id)?.status;
    };
    expect(await statusInMe()).toBe('documents_needed');
    await addRequiredFiles(id);
    await sendForReview(id);
    expect(await statusInMe()).toBe('pending');
    await decide(id, { status: 'rejected', reason: 'expired' });
    expect(await statusInMe()).toBe('rejected');
    await upload(id, 'letter_of_accreditation', 'signed letter.pdf');
    expect(await statusInMe()).toBe('documents_needed');
    await sendForReview(id);
    await decide(id, { status: 'approved' });
    expect(await statusInMe()).toBe('approved');
  });
});

describe('a decision', () => {
  it('needs a reason to reject, and words when the reason is "other"', async () => {
    const id = await newAccreditation();
    const noReason = await problem(await update(id, { status: 'rejected', note: 'No.' }, admin), 422);
    expect(noReason.errors!.map((e) => e.field)).toEqual(['accreditation.reason']);
    const noNote = await problem(await decide(id, { status: 'rejected', reason: 'other', note: '  ' }), 422);
    expect(noNote.errors!.map((e) => e.field)).toEqual(['accreditation.note']);
    const unknown = await problem(await update(id, { status: 'rejected', reason: 'bored' }, admin), 422);
    expect(unknown.errors![0]!.field).toMatch(/reason/);
    expect((await read(id)).status).toBe('pending');
    expect(await history(id)).toEqual([]);
    expect((await decide(id, { status: 'rejected', reason: 'other', note: 'Wrong person.' })).status).toBe(
      200,
    );
    expect(await read(id)).toMatchObject({ review_reason: 'other', review_note: 'Wrong person.' });
  });

  it('is refused on one not sent for review yet', async () => {
    const id = await newAccreditation('Still collecting', false);
    const refused = await problem(await decide(id, { status: 'approved' }), 409);
    expect(refused.code).toBe('not_submitted');
    expect(refused.detail).toMatch(/not been sent for review/);
    expect((await read(id)).status).toBe('documents_needed');
  });

  it('is for admins: the owner deciding on their own is refused', async () => {
    const id = await newAccreditation();
    await problem(await decide(id, { status: 'approved' }, investor), 403);
    await problem(await decide(id, { status: 'rejected', reason: 'other', note: 'x' }, investor), 403);
    await problem(await update(id, { status: 'pending', note: 'Please hurry.' }), 403);
    expect((await read(id)).status).toBe('pending');
  });

  it('records the files it was made on, with the SHA-256 of their bytes, and no thumbnails', async () => {
    const id = await newAccreditation();
    const letterBytes = await pdf('Signed letter');
    const letter = await uploadBytes(id, 'letter_of_accreditation', 'letter.pdf', letterBytes);
    const licenceBytes = await jpeg(80, 50);
    const licence = await uploadBytes(id, 'drivers_license', 'licence.jpg', licenceBytes);
    await decide(id, { status: 'approved', note: 'All in order.' });
    const [entry] = await history(id, admin);
    expect(entry).toMatchObject({ action: 'approved', note: 'All in order.', reason: null });
    expect(entry!.files).toEqual([
      {
        id: letter.id,
        name: 'letter.pdf',
        sha256: sha256(letterBytes),
        file_type: 'letter_of_accreditation',
      },
      {
        id: licence.id,
        name: 'licence.jpg',
        sha256: sha256(licenceBytes),
        file_type: 'drivers_license',
        // What the photo check (issue 31) said of it when the decision was made: an 80 × 50 flat
        // picture is neither sharp nor large enough to read. The letter, a PDF, is not checked.
        quality_issues: ['blurry', 'low_resolution'],
      },
    ]);
    const accreditation = await read(id);
    expect(accreditation.last_decision).toMatchObject({
      history_id: entry!.id,
      file_ids: [letter.id, licence.id],
    });
    // As they were: a rename later does not change the evidence.
    expect((await changeFile(letter, { name: 'renamed.pdf' })).status).toBe(200);
    expect((await history(id))[1]!.files![0]!.name).toBe('letter.pdf');
  });
});

describe('a file a decision was made on', () => {
  it('cannot be deleted by its owner nor by an admin; it can still be renamed and made public', async () => {
    const id = await newAccreditation();
    const letter = await upload(id, 'letter_of_accreditation', 'letter.pdf');
    await decide(id, { status: 'approved' });
    const decidedAt = new Date((await read(id)).reviewed_at!);
    const day = `${decidedAt.getUTCDate()} ${decidedAt.toUTCString().slice(8, 11)} ${decidedAt.getUTCFullYear()}`;

    for (const token of [investor, admin]) {
      const refused = await problem(await deleteFile(letter.id, token), 409);
      expect(refused.code).toBe('retained');
      expect(refused.detail).toBe(
        `This file is kept as evidence of the approval of ${day}; upload a new file beside it instead.`,
      );
    }
    expect((await api(`/v2/core/assets/${letter.id}`, investor)).status).toBe(200);
    // Its thumbnail stays with it.
    if (letter.thumbnail_id)
      expect((await api(`/v2/core/assets/${letter.thumbnail_id}`, admin)).status).toBe(200);
    expect((await changeFile(letter, { name: 'Letter (kept).pdf' })).status).toBe(200);
    expect((await changeFile(letter, { private: false })).status).toBe(200);
    expect((await changeFile(letter, { meta: { note: 'the first one' } })).status).toBe(200);

    // A file added after the decision is no evidence of it: it can go.
    const later = await upload(id, 'letter_of_accreditation', 'newer.pdf');
    expect((await deleteFile(later.id)).status).toBe(204);

    // A rejection names itself as such.
    await addRequiredFiles(id);
    await sendForReview(id);
    await decide(id, { status: 'rejected', reason: 'expired' });
    expect((await problem(await deleteFile(letter.id), 409)).detail).toMatch(/evidence of the rejection of /);
  });
});

describe("the admins' lists", () => {
  it('shows the decided ones, newest decision first, with who decided, when and the note', async () => {
    const first = await newAccreditation('Decided first');
    const second = await newAccreditation('Decided second');
    await upload(first);
    await decide(first, { status: 'approved', note: 'All in order.' });
    platform.advance(1000);
    await decide(
      second,
      { status: 'rejected', reason: 'wrong_document', note: 'Missing letter.' },
      secondAdmin,
    );

    const decided = (await list('decided')).accreditations;
    const ids = decided.map((a) => a.id);
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
    const firstItem = decided.find((a) => a.id === first)!;
    expect(firstItem).toMatchObject({
      status: 'approved',
      review_note: 'All in order.',
      reviewed_by: { name: 'Ada Admin' },
      owner: { email: 'investor@demo.test' },
    });
    expect(firstItem.reviewed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Its documents, private ones too, as in the pending queue, and what it needs.
    expect(firstItem.assets).toHaveLength(1);
    expect(firstItem.assets[0]!.private).toBe(true);
    expect(firstItem.requirements.map((r) => r.met)).toEqual([true, false]);
    expect(firstItem.last_decision!.file_ids).toEqual([firstItem.assets[0]!.id]);
    expect(decided.find((a) => a.id === second)).toMatchObject({
      reviewed_by: { name: 'Abe Admin' },
      review_reason: 'wrong_document',
    });

    expect(await idsIn('approved')).toContain(first);
    expect(await idsIn('approved')).not.toContain(second);
    expect(await idsIn('rejected')).toContain(second);
    expect((await list('rejected')).accreditations.every((a) => a.status === 'rejected')).toBe(true);
  });

  it('shows the waiting ones oldest sent first, whenever they were opened', async () => {
    const openedFirst = await newAccreditation('Opened first, sent second', false);
    const openedSecond = await newAccreditation('Opened second, sent first', false);
    await addRequiredFiles(openedFirst);
    await addRequiredFiles(openedSecond);
    await sendForReview(openedSecond);
    platform.advance(1000);
    await sendForReview(openedFirst);
    const pending = await list('pending', '&limit=100');
    const ids = pending.accreditations.map((a) => a.id);
    expect(ids.indexOf(openedSecond)).toBeLessThan(ids.indexOf(openedFirst));
    const times = pending.accreditations.map((a) => Date.parse(a.submitted_at!));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(pending.accreditations.every((a) => a.status === 'pending')).toBe(true);
    // Paged one at a time, the same order.
    const seen: number[] = [];
    let page = await list('pending', '&limit=1');
    seen.push(...page.accreditations.map((a) => a.id));
    while (page.next_cursor) {
      page = await list('pending', `&limit=1&cursor=${page.next_cursor}`);
      seen.push(...page.accreditations.map((a) => a.id));
    }
    expect(seen).toEqual(ids);
  });

  it('finds accreditations by any part of the owner’s name or email, in any case, and counts all', async () => {
    const password = demoPassword;
    const percent = await createUser(db, {
      email: 'Zed.Percent@Example.test',
      role: 'investor',
      password,
      name: 'Zoë 100% Zed',
    });
    const underscore = await createUser(db, {
      email: 'under_score@example.test',
      role: 'investor',
      password,
      name: 'Una Underscore',
    });
    const make = async (ownerId: number) =>
      (
        await db
          .insertInto('accreditations')
          .values({ owner_id: ownerId, name: 'Searched', status: 'pending', submitted_at: 1, created_at: 1 })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const zed = await make(percent.id);
    const una = await make(underscore.id);

    expect(await idsIn('pending', '&q=zed')).toEqual([zed]);
    expect(await idsIn('pending', '&q=%20%20EXAMPLE.TEST%20')).toEqual([zed, una]);
    expect(await idsIn('pending', `&q=${encodeURIComponent('100%')}`)).toEqual([zed]);
    // `%` and `_` are themselves, not wildcards.
    expect(await idsIn('pending', `&q=${encodeURIComponent('%')}`)).toEqual([zed]);
    expect(await idsIn('pending', '&q=under_')).toEqual([una]);
    // As a wildcard, `_` would match the `rsc` of "Una Underscore".
    expect(await idsIn('pending', '&q=r_c')).toEqual([]);
    expect(await idsIn('decided', '&q=zed')).toEqual([]);

    // Counts are over every accreditation, whatever q keeps.
    const statuses = await db.selectFrom('accreditations').select('status').execute();
    const expected = { documents_needed: 0, pending: 0, approved: 0, rejected: 0 };
    for (const { status } of statuses) expected[status]++;
    expect((await list('pending', '&q=zed')).counts).toEqual(expected);
    expect((await list('documents_needed')).counts).toEqual(expected);
    expect(expected.pending).toBeGreaterThan(1);

    const tooLong = await api(`/v2/core/accreditations?q=${'a'.repeat(201)}`, admin);
    expect((await problem(tooLong, 422)).errors![0]!.field).toBe('q');
    // A search's cursor belongs to that search.
    const first = await list('pending', '&q=example.test&limit=1');
    expect(first.next_cursor).not.toBeNull();
    const other = await api(
      `/v2/core/accreditations?status=pending&q=zed&cursor=${first.next_cursor}`,
      admin,
    );
    expect((await problem(other, 422)).errors![0]!.field).toBe('cursor');
    const next = await list('pending', `&q=example.test&limit=1&cursor=${first.next_cursor}`);
    expect(next.accreditations.map((a) => a.id)).toEqual([una]);
  });

  it('lists those waiting for documents, oldest first', async () => {
    const older = await newAccreditation('Waiting for documents 1', false);
    const newer = await newAccreditation('Waiting for documents 2', false);
    const ids = await idsIn('documents_needed');
    expect(ids.indexOf(older)).toBeLessThan(ids.indexOf(newer));
    expect(
      (await list('documents_needed')).accreditations.every((a) => a.status === 'documents_needed'),
    ).toBe(true);
  });

  it('pages each list with its own cursor', async () => {
    for (let i = 0; i < 3; i++) await decide(await newAccreditation(`Paged ${i}`), { status: 'approved' });
    const seen: number[] = [];
    let page = await list('decided', '&limit=2');
    expect(page.accreditations).toHaveLength(2);
    seen.push(...page.accreditations.map((a) => a.id));
    while (page.next_cursor) {
      page = await list('decided', `&limit=2&cursor=${page.next_cursor}`);
      seen.push(...page.accreditations.map((a) => a.id));
    }
    const all = (await list('decided', '&limit=100')).accreditations.map((a) => a.id);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);

    await newAccreditation('One more waiting');
    const pending = await list('pending', '&limit=1');
    expect(pending.next_cursor).not.toBeNull();
    // A cursor belongs to its list.
    const wrong = await api(`/v2/core/accreditations?status=decided&cursor=${pending.next_cursor}`, admin);
    expect(wrong.status).toBe(422);
    expect(((await wrong.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('cursor');
  });

  it('are for admins only', async () => {
    for (const status of ['pending', 'decided', 'documents_needed']) {
      expect((await api(`/v2/core/accreditations?status=${status}`, investor)).status).toBe(403);
    }
    expect((await api('/v2/core/accreditations?status=maybe', admin)).status).toBe(422);
  });
});

describe('deciding again', () => {
  it('records a correction as a new decision, and a repeated one as nothing new', async () => {
    const id = await newAccreditation();
    await decide(id, { status: 'rejected', reason: 'wrong_document', note: 'Wrong letter.' });
    // A retried request (its answer was lost): no second entry.
    expect(
      (await decide(id, { status: 'rejected', reason: 'wrong_document', note: 'Wrong letter.' })).status,
    ).toBe(200);
    expect((await history(id, admin)).map((e) => e.action)).toEqual(['rejected']);
    // Another reason is another decision.
    expect((await decide(id, { status: 'rejected', reason: 'expired', note: 'Wrong letter.' })).status).toBe(
      200,
    );
    expect((await history(id, admin)).map((e) => e.reason)).toEqual(['expired', 'wrong_document']);

    const corrected = await decide(
      id,
      { status: 'approved', note: 'My mistake: the letter is fine.' },
      secondAdmin,
    );
    expect(corrected.status).toBe(200);
    expect(await read(id)).toMatchObject({
      status: 'approved',
      review_reason: null,
      reviewed_by: { name: 'Abe Admin' },
    });
    expect((await history(id, admin)).map((e) => [e.action, e.actor.name])).toEqual([
      ['approved', 'Abe Admin'],
      ['rejected', 'Ada Admin'],
      ['rejected', 'Ada Admin'],
    ]);
  });

  it('answers 412 to a decision made on a page that went stale, with If-Match', async () => {
    const id = await newAccreditation();
    const seen = await read(id, admin);
    // Someone else decides meanwhile.
    const other = await decide(id, { status: 'approved' }, secondAdmin);
    expect(other.headers.get('etag')).toBe(
      accreditationSchema.parse(((await other.json()) as { accreditation: unknown }).accreditation).etag,
    );
    const stale = await decide(id, { status: 'rejected', reason: 'other', note: 'No.' }, admin, {
      'if-match': seen.etag,
    });
    expect((await problem(stale, 412)).code).toBe('precondition_failed');
    expect((await read(id)).status).toBe('approved');

    // An upload that reopens it, and the send after, make the page stale too.
    const current = await read(id, admin);
    const rejected = await decide(id, { status: 'rejected', reason: 'expired' }, admin, {
      'if-match': current.etag,
    });
    expect(rejected.status).toBe(200);
    const afterRejection = await read(id, admin);
    await addRequiredFiles(id);
    await sendForReview(id);
    expect(
      (await decide(id, { status: 'approved' }, admin, { 'if-match': afterRejection.etag })).status,
    ).toBe(412);
    expect(
      (await decide(id, { status: 'approved' }, admin, { 'if-match': (await read(id, admin)).etag })).status,
    ).toBe(200);
  });

  it('takes two decisions sent at once on the same page one after the other: the second meets 412', async () => {
    const id = await newAccreditation();
    const seen = await read(id, admin);
    const answers = await Promise.all([
      decide(id, { status: 'approved' }, admin, { 'if-match': seen.etag }),
      decide(id, { status: 'rejected', reason: 'unreadable' }, secondAdmin, { 'if-match': seen.etag }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const decided = answers.find((a) => a.status === 200)!;
    const { accreditation } = (await decided.json()) as { accreditation: { status: string } };
    expect((await read(id)).status).toBe(accreditation.status);
    // One decision, once in the history.
    const decisions = (await history(id)).filter((e) => e.action === 'approved' || e.action === 'rejected');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]!.action).toBe(accreditation.status);
  });
});

describe("an accreditation's history", () => {
  it('records every change to its files: who, what, when and the name at the time', async () => {
    const id = await newAccreditation();
    const start = Date.now();
    const licence = await upload(id, 'drivers_license', 'front.jpg');
    expect((await changeFile(licence, { name: 'Licence front.jpg' })).status).toBe(200);
    expect((await changeFile(licence, { private: false })).status).toBe(200);
    expect(
      (await changeFile(licence, { meta: { crop: { x: 0, y: 0, width: 32, height: 24 } } })).status,
    ).toBe(200);
    expect(
      (await changeFile(licence, { meta: { crop: { x: 0, y: 0, width: 32, height: 24 }, side: 'front' } }))
        .status,
    ).toBe(200);
    // Renamed and made private in one request: two entries.
    expect((await changeFile(licence, { name: 'Front.jpg', private: true })).status).toBe(200);
    // Nothing changed: nothing recorded.
    expect((await changeFile(licence, { name: 'Front.jpg' })).status).toBe(200);
    expect((await api(`/v2/core/assets/${licence.id}`, investor, { method: 'DELETE' })).status).toBe(204);

    const entries = await history(id);
    expect(entries.map((e) => [e.action, e.file?.name, e.file?.previous_name])).toEqual([
      ['file_deleted', 'Front.jpg', null],
      ['file_made_private', 'Front.jpg', null],
      ['file_renamed', 'Front.jpg', 'Licence front.jpg'],
      ['file_meta_changed', 'Licence front.jpg', null],
      ['file_cropped', 'Licence front.jpg', null],
      ['file_made_public', 'Licence front.jpg', null],
      ['file_renamed', 'Licence front.jpg', 'front.jpg'],
      ['file_uploaded', 'front.jpg', null],
    ]);
    for (const entry of entries) {
      expect(entry.actor).toEqual({ id: investorId, name: 'Ivy Investor', role: 'investor' });
      expect(entry.file!.file_type).toBe('drivers_license');
      // The file is gone: no entry points at it any more, each keeps the name it had.
      expect(entry.file!.asset_id).toBeNull();
      expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(start - 1000);
      expect(entry.note).toBeNull();
    }
    const times = entries.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('points at files that still exist', async () => {
    const id = await newAccreditation();
    const letter = await upload(id);
    const [entry] = await history(id);
    expect(entry!.file!.asset_id).toBe(letter.id);
  });

  it('is read by admins and the owner; a basic token is not enough for the private file names', async () => {
    const id = await newAccreditation();
    await upload(id);
    expect(await history(id, admin)).toEqual(await history(id, investor));
    const basic = (await tokensFor(platform, 'investor@demo.test', 'basic')).access_token;
    expect((await api(`/v2/core/accreditations/${id}/history`, basic)).status).toBe(403);
    expect((await api('/v2/core/accreditations/999999/history', admin)).status).toBe(404);
  });

  it('pages newest first', async () => {
    const id = await newAccreditation();
    for (let i = 0; i < 5; i++) await upload(id, 'letter_of_accreditation', `letter ${i}.pdf`);
    const first = historySchema.parse(
      await (await api(`/v2/core/accreditations/${id}/history?limit=3`, investor)).json(),
    );
    expect(first.history.map((e) => e.file!.name)).toEqual(['letter 4.pdf', 'letter 3.pdf', 'letter 2.pdf']);
    const second = historySchema.parse(
      await (
        await api(`/v2/core/accreditations/${id}/history?limit=3&cursor=${first.next_cursor}`, investor)
      ).json(),
    );
    expect(second.history.map((e) => e.file!.name)).toEqual(['letter 1.pdf', 'letter 0.pdf']);
    expect(second.next_cursor).toBeNull();
  });

  it('is append-only down to the database: a direct UPDATE or DELETE of a row fails', async () => {
    const id = await newAccreditation();
    await upload(id, 'letter_of_accreditation', 'original.pdf');
    const count = () =>
      db
        .selectFrom('accreditation_history')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
    const before = await count();
    await expect(
      db
        .updateTable('accreditation_history')
        .set({ file_name: 'forged.pdf' })
        .where('accreditation_id', '=', id)
        .execute(),
    ).rejects.toThrow(/append-only/);
    await expect(
      db.deleteFrom('accreditation_history').where('accreditation_id', '=', id).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(sql`delete from accreditation_history`.execute(db)).rejects.toThrow(/append-only/);
    // PostgreSQL's TRUNCATE passes row triggers by; SQLite has none.
    if (dialectOf(db) === 'postgres')
      await expect(sql`truncate accreditation_history`.execute(db)).rejects.toThrow(/append-only/);
    expect(await count()).toEqual(before);
    expect((await history(id)).map((e) => e.file!.name)).toEqual(['original.pdf']);
  });
});
