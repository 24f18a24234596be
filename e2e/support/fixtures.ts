import { randomUUID } from 'node:crypto';
import { expect, test as base, type BrowserContext, type Page } from '@playwright/test';
import type { Role } from '../../src/shared/api/me';
import { deleteOwnFiles, handSessionTo, signInOverHttp } from './http-sign-in';
import { addUser, type AddedUser, type OwnProduct } from './users';

/**
 * The tests' own fixture: `login` gives a test a person of its own, already signed in, so that no test
 * changes what another one reads (the demo accounts are read, never written, by the tests) and the
 * suite can run in any order and in parallel.
 */

export interface LoginOptions {
  role: Role;
  /** Their display name (the admin's queue shows it); by default the part of the email before the @. */
  name?: string;
  /**
   * An issuer's products, each with one investment and one team member; by default one, named uniquely
   * so that a test can find it among everyone else's.
   */
  products?: string[];
  /** The browser to sign in: the test's own by default, or another the test opened for a second person. */
  context?: BrowserContext;
}

/** A person `login` made and signed in. */
export interface Person extends AddedUser {
  role: Role;
}

/** An issuer `login` made: `product` is their first product. */
export interface Issuer extends Person {
  product: OwnProduct;
}

export interface Login {
  (options: LoginOptions & { role: 'issuer' }): Promise<Issuer>;
  (options: LoginOptions): Promise<Person>;
}

/** A person `loginElsewhere` made, and the page of the browser they are signed in to. */
export interface Elsewhere<P extends Person = Person> {
  person: P;
  /** The app's start page, open in a browser of its own (a context the fixture closes after the test). */
  page: Page;
}

export interface LoginElsewhere {
  (options: Omit<LoginOptions, 'context'> & { role: 'issuer' }): Promise<Elsewhere<Issuer>>;
  (options: Omit<LoginOptions, 'context'>): Promise<Elsewhere>;
}

export const test = base.extend<{
  /**
   * Makes a person (the platform's admin command, as an operator would) and signs them in over HTTP
   * (http-sign-in.ts), without the sign-in pages. Afterwards deletes the files on everything they own.
   */
  login: Login;
  /**
   * A second person at a browser of their own, for the tests of two people (an investor and the
   * admin who reviews them): `login` into a new browser context, with the app open on its start page.
   * The context is closed after the test, before the files are cleaned up.
   */
  loginElsewhere: LoginElsewhere;
}>({
  login: async ({ context }, use) => {
    const people: Person[] = [];
    const login = async ({ role, name, products, context: into = context }: LoginOptions) => {
      const added = addUser(role, name, {
        products: products ?? (role === 'issuer' ? [`Fund ${randomUUID().slice(0, 8)}`] : []),
      });
      const person = { ...added, role, product: added.products[0]! };
      people.push(person);
      await handSessionTo(into, await signInOverHttp(person.email, person.password));
      return person;
    };
    await use(login as Login);
    // A session of its own for the clean-up: the test may have signed out, or let its tokens lapse.
    for (const person of people) {
      const { accessToken } = await signInOverHttp(person.email, person.password);
      await deleteOwnFiles(accessToken);
    }
  },
  loginElsewhere: async ({ browser, login }, use) => {
    const contexts: BrowserContext[] = [];
    const loginElsewhere = async (options: Omit<LoginOptions, 'context'>) => {
      const context = await browser.newContext();
      contexts.push(context);
      const person = await login({ ...options, context });
      const page = await context.newPage();
      await page.goto('/');
      return { person, page };
    };
    await use(loginElsewhere as LoginElsewhere);
    // Closing an already closed context (a test may close one to end that person's part) is harmless.
    for (const context of contexts) await context.close();
  },
});

export { expect };
