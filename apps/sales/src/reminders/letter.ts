import type { ReminderLine } from '@ledgerline/contracts';
import { Dec, isoDay } from '@ledgerline/service-kit';
import { formatDate, formatMoney } from '@ledgerline/rendering';
import type { LetterRow } from './reminders.js';

/*
 * The reminder letter as the customer reads it (and as its PDF is printed): the organisation, the
 * customer, the invoices still owed with their interest and fees, the totals per currency and the
 * letter's text. Everything the client or customer wrote is escaped; nothing is loaded.
 */

const LABELS = {
  cs: {
    title: (level: number) => `Upomínka${level > 1 ? ` (${level}.)` : ''}`,
    date: 'Datum',
    to: 'Odběratel',
    invoice: 'Faktura',
    overdue: 'Dní po splatnosti',
    due: 'Dlužná částka',
    interest: 'Úrok z prodlení',
    fee: 'Poplatek',
    total: 'Celkem',
    rate: (r: number) => `${String(r).replace('.', ',')} % p. a.`,
    interestNote: 'Úrok z prodlení dle nařízení vlády č. 351/2013 Sb. (repo sazba ČNB + 8 procentních bodů), do dne této upomínky.',
    payTo: 'Platbu prosím zašlete na účet',
  },
  en: {
    title: (level: number) => `Payment reminder${level > 1 ? ` (${level})` : ''}`,
    date: 'Date',
    to: 'Customer',
    invoice: 'Invoice',
    overdue: 'Days overdue',
    due: 'Amount due',
    interest: 'Late-payment interest',
    fee: 'Fee',
    total: 'Total',
    rate: (r: number) => `${r} % a year`,
    interestNote: 'Late-payment interest at the Czech statutory rate (the CNB repo rate + 8 percentage points), up to the date of this reminder.',
    payTo: 'Please pay to the account',
  },
} as const;

const escape = (s: unknown) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The organisation's account to pay to, when its profile has one. */
function payTo(org: Record<string, unknown> | null, label: string): string {
  const account = (org?.bank_account ?? null) as Record<string, unknown> | null;
  const parts = [account?.account_number, account?.iban && `IBAN ${account.iban}`, account?.bic && `BIC ${account.bic}`].filter(Boolean);
  return parts.length ? `<p>${escape(label)}: <strong>${parts.map(escape).join(', ')}</strong></p>` : '';
}

export function reminderLetterHtml(letter: LetterRow, lines: readonly ReminderLine[], org: Record<string, unknown> | null): string {
  const lang = letter.language.toLowerCase().startsWith('cs') ? 'cs' : 'en';
  const culture = lang === 'cs' ? 'cs-CZ' : 'en-GB';
  const t = LABELS[lang];
  const customer = letter.customer ?? {};
  const address = (a: unknown) => {
    const v = (a ?? {}) as Record<string, unknown>;
    return [v.address1, v.address2, [v.postal_code, v.city].filter(Boolean).join(' '), v.country].filter(Boolean).map(escape).join('<br>');
  };
  const money = (v: unknown, currency: string) => escape(v === null || v === undefined ? '—' : formatMoney(v, culture, currency, 2));
  const totals = new Map<string, Dec>();
  for (const l of lines) totals.set(l.currency, (totals.get(l.currency) ?? Dec(0)).plus(l.amount_due).plus(l.interest ?? 0).plus(l.fee));
  const rows = lines
    .map(
      (l) => `<tr><td>${escape(l.invoice_no)}</td><td class="n">${l.days_overdue}</td><td class="n">${money(l.amount_due, l.currency)}</td>
        <td class="n">${money(l.interest, l.currency)}${l.interest_rate !== null ? `<br><small>${escape(t.rate(l.interest_rate))}</small>` : ''}</td>
        <td class="n">${money(l.fee, l.currency)}</td></tr>`,
    )
    .join('');
  const totalRows = [...totals].map(([c, v]) => `<tr class="total"><td colspan="4">${t.total} (${escape(c)})</td><td class="n">${money(v.toFixed(2), c)}</td></tr>`).join('');
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escape(t.title(letter.level))}</title>
<style>
  @page { size: A4; margin: 18mm; }
  body { font-family: 'DejaVu Sans', 'Liberation Sans', sans-serif; font-size: 10pt; color: #1a1a1a; }
  h1 { font-size: 18pt; margin: 0 0 12pt; }
  .parties { display: flex; justify-content: space-between; margin-bottom: 16pt; }
  .parties div { width: 48%; }
  table { width: 100%; border-collapse: collapse; margin: 12pt 0; }
  th { text-align: left; border-bottom: 1.5pt solid #333; padding: 4pt; font-size: 9pt; }
  td { border-bottom: 0.5pt solid #ccc; padding: 4pt; vertical-align: top; }
  .n { text-align: right; white-space: nowrap; }
  tr.total td { font-weight: bold; border-bottom: none; border-top: 1.5pt solid #333; }
  .text { white-space: pre-wrap; margin-top: 14pt; }
  small, .note { color: #555; font-size: 8pt; }
</style></head><body>
<h1>${escape(t.title(letter.level))}</h1>
<div class="parties">
  <div><strong>${escape(org?.name ?? '')}</strong><br>${address(org?.address)}${org?.vat_no ? `<br>${escape(org.vat_no)}` : ''}</div>
  <div><em>${t.to}</em><br><strong>${escape(customer.business_name ?? customer.display_name ?? '')}</strong><br>${address(customer.address)}</div>
</div>
<div>${t.date}: ${escape(formatDate(isoDay(letter.run_date), culture))}</div>
<table><thead><tr><th>${t.invoice}</th><th class="n">${t.overdue}</th><th class="n">${t.due}</th><th class="n">${t.interest}</th><th class="n">${t.fee}</th></tr></thead>
<tbody>${rows}${totalRows}</tbody></table>
<div class="text">${escape(letter.body)}</div>
${payTo(org, t.payTo)}
${lines.some((l) => l.interest_rate !== null) ? `<p class="note">${t.interestNote}</p>` : ''}
</body></html>`;
}
