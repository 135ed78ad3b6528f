import type { InvoiceRequest } from '@ledgerline/contracts';
import type { ComputedDocument } from '@ledgerline/documents';
import { BusinessRuleError, ConflictError, dec, sqlRows, toWire, type Dec, type TenantContext } from '@ledgerline/service-kit';
import { advanceDeductionFigures, legalFiguresAfterAdvances, type AdvanceTaxDocument } from '@ledgerline/posted-documents';
import { sameCustomer } from '../credit-notes/credit-note-kind.js';
import type { Deduction } from '../sales-documents/post.js';
import { emitProforma } from './proformas.js';

/*
 * A final invoice (vyúčtování) deducting the advances paid on proformas (issue 75, decision 236):
 * its total is the whole supply; what was paid on the proformas counts as paid, so amount_due is
 * what is left; the VAT its advance tax documents declared is taken back rate by rate (the ledger
 * posts Dr 324 / Dr 343 / Cr 311 for it), so advance and final invoice together declare the
 * supply's VAT once. The proformas are locked, checked and settled in the invoice's transaction.
 */

interface ProformaRow {
  id: string;
  no: string;
  currency: string;
  proforma_state: string | null;
  amount_paid: string;
  customer: string | null;
}

interface TaxDocumentRow {
  proforma_id: string;
  id: string;
  no: string;
  total_amount: string;
  total_leg: string | null;
  taxes: string | null;
}

const at = (i: number, message: string, code: string) => [{ path: `advances.${i}.proforma_id`, message, code }];

/** One proforma's deduction: its payments, per rate as its tax documents declared them, and the rest untaxed. */
function deductionOf(p: ProformaRow, docs: TaxDocumentRow[], legPerUnit: Dec, precision: number) {
  const amount = dec(p.amount_paid);
  const taxed = docs.map((d) => ({ total_amount: d.total_amount, total_leg: d.total_leg, taxes: JSON.parse(d.taxes ?? '[]') as AdvanceTaxDocument['taxes'] }));
  return {
    amount,
    entry: {
      proforma_id: Number(p.id),
      proforma_no: p.no,
      ...advanceDeductionFigures(amount, taxed, legPerUnit, precision),
      tax_documents: docs.map((d) => ({ id: Number(d.id), no: d.no })),
    },
  };
}

/** `INVOICES.deducts`: the advances a final invoice names, checked and priced; null for an invoice naming none. */
export async function advanceDeductions(ctx: TenantContext, input: InvoiceRequest, computed: ComputedDocument): Promise<Deduction | null> {
  const asked = (input.advances ?? []).map((a) => a.proforma_id);
  if (asked.length === 0) return null;
  const { em, orgId } = ctx;
  // locked in id order (two invoices deducting the same proformas never deadlock); the second waits and finds them settled
  const rows = await sqlRows<ProformaRow>(
    em,
    `select id, no, trim(currency) as currency, proforma_state, amount_paid::text as amount_paid, (body::json->'customer')::text as customer
       from sales_documents where org_id = ? and doc_type = 'sales_proforma' and id = any(?::bigint[]) order by id for update`,
    [orgId, `{${asked.join(',')}}`],
  );
  const docs = await sqlRows<TaxDocumentRow>(
    em,
    `select proforma_id, id, no, total_amount::text as total_amount, body::json->>'total_amount_leg' as total_leg, (body::json->'taxes')::text as taxes
       from sales_documents where org_id = ? and doc_type = 'sales_advance_tax_document' and proforma_id = any(?::bigint[]) order by id`,
    [orgId, `{${asked.join(',')}}`],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const total = dec(computed.total_amount);
  const legPerUnit = total.isZero() ? dec(computed.fx_rate).div(computed.currency_coef || 1) : dec(computed.total_amount_leg).div(total);
  const entries = [];
  let sum = dec(0);
  for (const [i, id] of asked.entries()) {
    const p = byId.get(id);
    if (!p) throw new BusinessRuleError(`Proforma invoice ${id} does not exist`, 'proforma_not_found', at(i, 'no such proforma invoice in this organisation', 'proforma_not_found'));
    if (p.proforma_state === 'settled') throw new ConflictError(`Proforma invoice ${p.no} is already deducted by another invoice`, 'advance_already_deducted', at(i, 'already deducted', 'advance_already_deducted'));
    if (p.proforma_state === 'cancelled') throw new BusinessRuleError(`Proforma invoice ${p.no} is cancelled`, 'proforma_cancelled', at(i, 'cancelled', 'proforma_cancelled'));
    if (p.currency !== computed.currency) throw new BusinessRuleError(`Proforma invoice ${p.no} is in ${p.currency}, the invoice in ${computed.currency}`, 'currency_mismatch', at(i, 'another currency than the invoice', 'currency_mismatch'));
    if (!sameCustomer(JSON.parse(p.customer ?? 'null'), input.customer as Record<string, unknown>)) {
      throw new BusinessRuleError(`Proforma invoice ${p.no} is another customer's`, 'customer_mismatch', at(i, 'another customer than the invoice', 'customer_mismatch'));
    }
    if (!dec(p.amount_paid).gt(0)) throw new BusinessRuleError(`Nothing has been paid on proforma invoice ${p.no}`, 'proforma_unpaid', at(i, 'nothing paid on it yet', 'proforma_unpaid'));
    const d = deductionOf(p, docs.filter((x) => Number(x.proforma_id) === id), legPerUnit, computed.precision);
    sum = sum.plus(d.amount);
    entries.push(d.entry);
  }
  if (sum.gt(total)) {
    throw new BusinessRuleError(`The advances deducted (${sum.toFixed(computed.precision)}) exceed the invoice total (${total.toFixed(computed.precision)})`, 'advances_exceed_total', [
      { path: 'advances', message: 'more than the invoice total', code: 'advances_exceed_total' },
    ]);
  }
  return {
    paid: sum.toString(),
    own: { advances: entries, advance_amount: toWire(sum.toFixed(computed.precision)) },
    computed: legalFiguresAfterAdvances(computed, entries),
    written: async (invoice) => {
      await sqlRows(
        em,
        `update sales_documents set proforma_state = 'settled', settled_by_id = ?, settled_by_no = ?, amount_due = 0, updated_at = now()
          where org_id = ? and doc_type = 'sales_proforma' and id = any(?::bigint[])`,
        [invoice.id, invoice.no, orgId, `{${asked.join(',')}}`],
      );
      for (const id of asked) await emitProforma(ctx, id, 'updated');
    },
  };
}
