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
import { jpeg, multipartBody, pdf } from '../testing/files';
import {
  bearer,
  demoPassword,
  startPlatform,
  type TestPlatform,
  tokensFor,
} from '../testing/platform-server';
import { createUser } from '../users/users';

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

/** A fresh pending accreditation of the demo investor, so that each test starts from its own. */
async function newAccreditation(name = 'Accreditation under test') {
  const { id } = await db
    .insertInto('accreditations')
    .values({ owner_id: investorId, name, status: 'pending', created_at: Date.now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

async function read(id: number, token = investor) {
  const response = await api(`/v2/core/accreditations/${id}`, token);
  expect(response.status).toBe(200);
  return accreditationSchema.parse(((await response.json()) as { accreditation: unknown }).accreditation);
}

function decide(
  id: number,
  decision: { status: 'approved' | 'rejected'; note?: string },
  token = admin,
  headers: Record<string, string> = {},
) {
  return api(`/v2/core/accreditations/${id}`, token, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ accreditation: decision }),
  });
}

async function upload(
  id: number,
  fileType = 'letter_of_accreditation',
  name = 'letter.pdf',
  token = investor,
): Promise<Asset> {
  const bytes = fileType === 'drivers_license' ? await jpeg(64, 48) : pdf('Letter');
  const response = await api('/v2/core/assets', token, {
    method: 'POST',
    body: multipartBody(
      { file_type: fileType, assetable_type: 'Accreditation', assetable_id: String(id) },
      { name, bytes },
    ),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

function changeFile(asset: Asset, changes: Record<string, unknown>) {
  return api(`/v2/core/assets/${asset.id}`, investor, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ asset: changes }),
  });
}

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

describe('an accreditation read by its owner', () => {
  it("shows its status, and once decided the reviewer's note, when and who", async () => {
    const id = await newAccreditation();
    expect(await read(id)).toMatchObject({
      status: 'pending',
      review_note: null,
      reviewed_at: null,
      reviewed_by: null,
      links: {
        assets: `/v2/core/accreditations/${id}/assets`,
        history: `/v2/core/accreditations/${id}/history`,
      },
    });
    const before = Date.now();
    expect((await decide(id, { status: 'rejected', note: 'The letter is not signed.' })).status).toBe(200);
    const decided = await read(id);
    expect(decided).toMatchObject({
      status: 'rejected',
      review_note: 'The letter is not signed.',
      reviewed_by: { name: 'Ada Admin' },
    });
    expect(Date.parse(decided.reviewed_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(decided.reviewed_at!)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('is not found by another investor, nor its history', async () => {
    const id = await newAccreditation();
    expect((await api(`/v2/core/accreditations/${id}`, otherInvestor)).status).toBe(404);
    const response = await api(`/v2/core/accreditations/${id}/history`, otherInvestor);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('a rejected accreditation answered by an upload', () => {
  it('goes back to pending and into the queue, and the history says why', async () => {
    const id = await newAccreditation();
    await decide(id, { status: 'rejected', note: 'Upload a signed letter.' });
    expect((await list('pending', '&limit=100')).accreditations.map((a) => a.id)).not.toContain(id);

    await upload(id, 'letter_of_accreditation', 'signed letter.pdf');
    expect(await read(id)).toMatchObject({
      status: 'pending',
      review_note: null,
      reviewed_at: null,
      reviewed_by: null,
    });
    expect((await list('pending', '&limit=100')).accreditations.map((a) => a.id)).toContain(id);
    const entries = await history(id);
    expect(entries.map((e) => e.action)).toEqual(['reopened', 'file_uploaded', 'rejected']);
    expect(entries[0]!.actor.name).toBe('Ivy Investor');
    expect(entries[1]!.file).toMatchObject({
      name: 'signed letter.pdf',
      file_type: 'letter_of_accreditation',
    });
    expect(entries[2]).toMatchObject({
      note: 'Upload a signed letter.',
      actor: { name: 'Ada Admin', role: 'admin' },
    });
  });

  it('stays approved when approved, and pending when pending: only a rejection is answered', async () => {
    const approved = await newAccreditation();
    await decide(approved, { status: 'approved' });
    await upload(approved);
    expect((await read(approved)).status).toBe('approved');
    const pending = await newAccreditation();
    await upload(pending);
    expect((await read(pending)).status).toBe('pending');
    expect((await history(pending)).map((e) => e.action)).toEqual(['file_uploaded']);
  });
});

describe('the investor’s /me', () => {
  it('says where each of their accreditations stands, as decisions and uploads change it', async () => {
    const id = await newAccreditation();
    const statusInMe = async () => {
      const me = meSchema.parse(await (await api('/v2/core/me', investor)).json());
      return me.entities.find((e) => e.type === 'Accreditation' && e.id === id)?.status;
    };
    expect(await statusInMe()).toBe('pending');
    await decide(id, { status: 'rejected', note: 'The letter is not signed.' });
    expect(await statusInMe()).toBe('rejected');
    await upload(id, 'letter_of_accreditation', 'signed letter.pdf');
    expect(await statusInMe()).toBe('pending');
    await decide(id, { status: 'approved' });
    expect(await statusInMe()).toBe('approved');
  });
});

describe("the admins' lists", () => {
  it('shows the decided ones, newest decision first, with who decided, when and the note', async () => {
    const first = await newAccreditation('Decided first');
    const second = await newAccreditation('Decided second');
    await upload(first);
    await decide(first, { status: 'approved', note: 'All in order.' });
    platform.advance(1000);
    await decide(second, { status: 'rejected', note: 'Missing letter.' }, secondAdmin);

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
    // Its documents, private ones too, as in the pending queue.
    expect(firstItem.assets).toHaveLength(1);
    expect(firstItem.assets[0]!.private).toBe(true);
    expect(decided.find((a) => a.id === second)!.reviewed_by!.name).toBe('Abe Admin');

    expect((await list('approved')).accreditations.map((a) => a.id)).toContain(first);
    expect((await list('approved')).accreditations.map((a) => a.id)).not.toContain(second);
    expect((await list('rejected')).accreditations.map((a) => a.id)).toContain(second);
    expect((await list('rejected')).accreditations.every((a) => a.status === 'rejected')).toBe(true);
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

    const pending = await list('pending', '&limit=1');
    expect(pending.next_cursor).not.toBeNull();
    // A cursor belongs to its list.
    const wrong = await api(`/v2/core/accreditations?status=decided&cursor=${pending.next_cursor}`, admin);
    expect(wrong.status).toBe(422);
    expect(((await wrong.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('cursor');
  });

  it('are for admins only', async () => {
    for (const status of ['pending', 'decided']) {
      expect((await api(`/v2/core/accreditations?status=${status}`, investor)).status).toBe(403);
    }
    expect((await api('/v2/core/accreditations?status=maybe', admin)).status).toBe(422);
  });
});

describe('deciding again', () => {
  it('records a correction as a new decision, and a repeated one as nothing new', async () => {
    const id = await newAccreditation();
    await decide(id, { status: 'rejected', note: 'Wrong letter.' });
    // A retried request (its answer was lost): no second entry.
    expect((await decide(id, { status: 'rejected', note: 'Wrong letter.' })).status).toBe(200);
    expect((await history(id, admin)).map((e) => e.action)).toEqual(['rejected']);

    const corrected = await decide(
      id,
      { status: 'approved', note: 'My mistake: the letter is fine.' },
      secondAdmin,
    );
    expect(corrected.status).toBe(200);
    expect(await read(id)).toMatchObject({ status: 'approved', reviewed_by: { name: 'Abe Admin' } });
    expect((await history(id, admin)).map((e) => [e.action, e.actor.name])).toEqual([
      ['approved', 'Abe Admin'],
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
    const stale = await decide(id, { status: 'rejected', note: 'No.' }, admin, { 'if-match': seen.etag });
    expect(stale.status).toBe(412);
    expect(((await stale.json()) as { code: string }).code).toBe('precondition_failed');
    expect((await read(id)).status).toBe('approved');

    // An upload that answers a rejection makes the page stale too.
    const current = await read(id, admin);
    const rejected = await decide(id, { status: 'rejected', note: 'Expired.' }, admin, {
      'if-match': current.etag,
    });
    expect(rejected.status).toBe(200);
    const afterRejection = await read(id, admin);
    await upload(id);
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
      decide(id, { status: 'rejected', note: 'Unreadable.' }, secondAdmin, { 'if-match': seen.etag }),
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
