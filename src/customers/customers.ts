import { randomUUID } from 'node:crypto';
import { deleteSavedCard, type SavedCardView, saveCard, savedCardsOf } from '../cards/index.js';
import type { Db } from '../platform/db/db.js';
import { notFound, validation } from '../platform/errors/app-error.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { encodeCursor } from '../platform/paging/pagination.js';
import { nameProblem } from '../platform/text/names.js';
import { normalizeCustomer } from '../sales/index.js';
import { type CustomerRow, findCustomer, insertCustomer, listCustomers } from './data.js';

export interface CustomerInput {
  name: string;
  email: string;
  document: string;
  phone?: string;
}

export interface CustomerView {
  id: string;
  name: string;
  email: string;
  document: string;
  phone: string;
  cards: SavedCardView[];
  createdAt: string;
}

const view = (c: CustomerRow, cards: SavedCardView[]): CustomerView => ({
  id: c.uuid,
  name: c.name,
  email: c.email,
  document: c.document,
  phone: c.phone,
  cards,
  createdAt: c.created_at.toISOString(),
});

/** A merchant's customers and their cards on file (API keys); another account's customer is not found. */
export class Customers {
  constructor(private readonly db: Db) {}

  async create(accountId: number, input: CustomerInput): Promise<CustomerView> {
    // the same checks as a charge's customer: name, e-mail, CPF/CNPJ check digits, phone digits
    const c = normalizeCustomer({ ...input, phone: input.phone ?? '' });
    // the gateway prints a customer's name in the e-mails it sends them: checked as every printed name
    const problem = nameProblem(c.name, { maxLength: 200 });
    if (problem) throw validation(`name ${problem}`);
    return view(await insertCustomer(this.db, { uuid: randomUUID(), accountId, ...c }), []);
  }

  async one(accountId: number, id: string): Promise<CustomerView> {
    const customer = await this.owned(accountId, id);
    return view(customer, (await savedCardsOf(this.db, [customer.id])).get(customer.id) ?? []);
  }

  async list(accountId: number, before: number | null, limit: number) {
    const rows = await listCustomers(this.db, accountId, before, limit);
    const kept = rows.slice(0, limit);
    const cards = await savedCardsOf(
      this.db,
      kept.map((c) => c.id),
    );
    return {
      data: kept.map((c) => view(c, cards.get(c.id) ?? [])),
      nextCursor: rows.length > limit ? encodeCursor(kept[kept.length - 1]!.id) : null,
    };
  }

  /** Saves a card (a one-time token of this account, POST /api/cards/tokens) on file for the customer. */
  async saveCard(accountId: number, id: string, token: string): Promise<SavedCardView> {
    const customer = await this.owned(accountId, id);
    const saved = await this.db.tx((tx) => saveCard(tx, accountId, customer.id, token));
    if (!saved) throw validation('token is unknown, used or expired');
    return saved;
  }

  async deleteCard(accountId: number, id: string, cardId: string): Promise<void> {
    const customer = await this.owned(accountId, id);
    const deleted =
      isUuid(cardId) && (await this.db.tx((tx) => deleteSavedCard(tx, accountId, customer.id, cardId)));
    if (!deleted) throw notFound('Card not found');
  }

  private async owned(accountId: number, id: string): Promise<CustomerRow> {
    const customer = isUuid(id) ? await findCustomer(this.db, accountId, id.toLowerCase()) : null;
    if (!customer) throw notFound('Customer not found');
    return customer;
  }
}
