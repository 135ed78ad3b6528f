import { sqlMigration } from '@ledgerline/service-kit';

/**
 * The ledger's database functions from accounting_0012 on: the superseded store functions
 * dropped, the replay of a rebuild (`ledger_replay_entries`) and the day balances the reports
 * read. Continues ledger-functions.migrations.ts (0004–0008), under the same policy.
 */
export const laterLedgerFunctionMigrations = [
  sqlMigration(
    'accounting_0012_drop_superseded_ledger_functions',
    `
-- Decision 194. The versions the code stopped calling releases ago: ledger_insert_entry and
-- ledger_insert_entries (accounting_0008) are the only ones it calls. No replica runs the code
-- that called these any more, so they go, with the JSON helper only the first of them used.
drop function if exists ledger_store_entries(bigint, jsonb);
drop function if exists ledger_store_entry(bigint, text, jsonb, jsonb, jsonb, text[]);
drop function if exists ledger_post_entry(bigint, text, jsonb, jsonb, jsonb, text[]);
drop function if exists ledger_json_row(jsonb);
`,
  ),
  sqlMigration(
    'accounting_0015_replay_entries',
    `
-- Decision 214. A rebuild stored each replayed posting through ledger_insert_entry: about 1 ms a
-- posting, nearly all of it that function's statements one entry at a time (lock, version
-- check, five inserts, the balance check of each row), and it deleted the old ledger through a
-- per-row guard and queued a deferred balance check for every row deleted and inserted, held in
-- the backend's memory until the commit. ledger_replay_entries stores a batch of postings new to
-- the ledger (the caller has checked that no version of their documents is in it) with one
-- insert per table and checks the batch's balance with one aggregate. While a rebuild's
-- transaction says so (ledger.rebuild), the guards and the per-row check are not queued at all:
-- the same triggers with a WHEN, evaluated as each row is written. Everything else, and a rebuild
-- outside this function, is guarded and checked as before.
--
-- Deleting an organisation's ledger rows made Postgres check, for every row, that no tax row still
-- names it (ledger_tax_rows.row_id references it), and with no index on row_id each check read
-- every organisation's tax rows: a rebuild of 6 000 entries had not finished deleting after two
-- minutes beside a ledger of 20 000 invoices. Deleting its headers did the same for the
-- reversals that name them (accounting_transactions.reverses_id). The indexes make each check one
-- lookup; the second holds only reversals. (If not exists: an operator with a large ledger may
-- build them beforehand with create index concurrently, which a migration in a transaction
-- cannot.)
create index if not exists ledger_tax_rows_row on ledger_tax_rows (row_id);
create index if not exists accounting_transactions_reverses on accounting_transactions (reverses_id) where reverses_id is not null;
drop trigger ledger_balanced on ledger_rows;
create constraint trigger ledger_balanced after insert or update or delete on ledger_rows
  deferrable initially deferred for each row
  when (coalesce(current_setting('ledger.rebuild', true), '') <> 'on')
  execute function ledger_check_balance();
drop trigger ledger_rows_append_only on ledger_rows;
create trigger ledger_rows_append_only before update or delete on ledger_rows
  for each row when (coalesce(current_setting('ledger.rebuild', true), '') <> 'on') execute function ledger_append_only();
drop trigger ledger_tax_rows_append_only on ledger_tax_rows;
create trigger ledger_tax_rows_append_only before update or delete on ledger_tax_rows
  for each row when (coalesce(current_setting('ledger.rebuild', true), '') <> 'on') execute function ledger_append_only();
drop trigger accounting_transactions_guard on accounting_transactions;
create trigger accounting_transactions_guard before update or delete on accounting_transactions
  for each row when (coalesce(current_setting('ledger.rebuild', true), '') <> 'on') execute function accounting_transaction_guard();

-- p_entries: [{tx, rows, taxes, accounts}] as ledger_insert_entries takes them. Answers how many
-- postings it stored; raises (nothing stored) when one of them is already in the ledger or does
-- not balance, so the caller can store them one by one.
create function ledger_replay_entries(p_org bigint, p_entries jsonb)
returns int language plpgsql as $fn$
declare
  v_sent int := jsonb_array_length(p_entries);
  v_ids bigint[];
  v_bad record;
begin
  perform set_config('ledger.rebuild', 'on', true);
  insert into gl_accounts (org_id, number, name_cs, name_en)
  select p_org, n, 'Účet ' || n, 'Account ' || n
    from (select distinct jsonb_array_elements_text(e->'accounts') as n from jsonb_array_elements(p_entries) e) a order by n
  on conflict (org_id, number) do nothing;
  with e as (
    select k, v from jsonb_array_elements(p_entries) with ordinality as a(v, k)
  ), h as (
    insert into accounting_transactions (
      org_id, uid, book_id, type, source_type, source_id, source_version, entry_kind,
      source_event_id, reverses_id, accounting_status, no, vendor_doc_no, credited_doc_no,
      payment_reference, description, date_issued, date_due, date_posting, date_taxable,
      date_tax_applied, currency, legal_currency, precision, transaction_type, contact,
      bank_account, tax_nexus, paid_record, fx_rates, tax_deduction_ratio, net_deduction_ratio,
      amount_paid, amount_due, total
    )
    select p_org, x.uid, x.book_id, x.type, x.source_type, x.source_id, x.source_version, x.entry_kind,
      x.source_event_id, x.reverses_id, x.accounting_status, x.no, x.vendor_doc_no, x.credited_doc_no,
      x.payment_reference, x.description, x.date_issued, x.date_due, x.date_posting, x.date_taxable,
      x.date_tax_applied, x.currency, x.legal_currency, x.precision, x.transaction_type, x.contact,
      x.bank_account, x.tax_nexus, x.paid_record, x.fx_rates, x.tax_deduction_ratio,
      x.net_deduction_ratio, x.amount_paid, x.amount_due, x.total
      from e cross join lateral jsonb_populate_record(null::accounting_transactions, e.v->'tx') x
     order by e.k
    on conflict do nothing
    returning id, uid
  ), r as (
    insert into ledger_rows (
        org_id, transaction_id, book_id, ord, role, date_posting, gl_account_number, debit, credit,
        description, currency, payment_amount, payment_reference, contact, paid_record, fx_rates,
        tax_deduction_ratio, net_deduction_ratio
    )
    select p_org, h.id, x.book_id, x.ord, x.role, x.date_posting, x.gl_account_number, x.debit, x.credit, x.description,
      x.currency, x.payment_amount, x.payment_reference, x.contact, x.paid_record, x.fx_rates,
      x.tax_deduction_ratio, x.net_deduction_ratio
      from e join h on h.uid = (e.v->'tx'->>'uid')::uuid
      cross join lateral jsonb_populate_recordset(null::ledger_rows, e.v->'rows') x
     order by h.id, x.ord
    returning id, transaction_id, ord
  ), t as (
    insert into ledger_tax_rows (
        org_id, transaction_id, row_id, ord, gl_account_number, debit, credit, description,
        currency, tax_rate, tax_rate_rc, is_reverse_charge, tax_index, tax_code, tax_name,
        tax_base_in, tax_base_in_leg, tax_base_out, tax_base_out_leg, tax_amount_in,
        tax_amount_in_leg, tax_amount_claim, tax_amount_claim_leg, tax_amount_out,
        tax_amount_out_leg, tax_return_base_in, tax_return_base_out, tax_return_amount_claim,
        tax_return_amount_out, tax_control_statement, tax_eu_sales_report, tax_deduction_ratio,
        net_deduction_ratio
    )
    select p_org, h.id, r.id, x.ord, x.gl_account_number, x.debit, x.credit, x.description, x.currency, x.tax_rate, x.tax_rate_rc,
      x.is_reverse_charge, x.tax_index, x.tax_code, x.tax_name, x.tax_base_in, x.tax_base_in_leg,
      x.tax_base_out, x.tax_base_out_leg, x.tax_amount_in, x.tax_amount_in_leg, x.tax_amount_claim,
      x.tax_amount_claim_leg, x.tax_amount_out, x.tax_amount_out_leg, x.tax_return_base_in,
      x.tax_return_base_out, x.tax_return_amount_claim, x.tax_return_amount_out,
      x.tax_control_statement, x.tax_eu_sales_report, x.tax_deduction_ratio, x.net_deduction_ratio
      from e join h on h.uid = (e.v->'tx'->>'uid')::uuid
      cross join lateral jsonb_array_elements(e.v->'taxes') j(j)
      cross join lateral jsonb_populate_record(null::ledger_tax_rows, j.j) x
      join r on r.transaction_id = h.id and r.ord = (j.j->>'row_ord')::int
     order by h.id, x.ord
    returning 1
  )
  -- r and t run whether read or not (data-modifying CTEs always do)
  select array_agg(id) into v_ids from h;
  perform set_config('ledger.rebuild', 'off', true);
  if coalesce(array_length(v_ids, 1), 0) <> v_sent then
    raise exception 'ledger_replay_entries: % of % postings are already in the ledger', v_sent - coalesce(array_length(v_ids, 1), 0), v_sent
      using errcode = '23505';
  end if;
  select transaction_id, sum(debit) as d, sum(credit) as c into v_bad from ledger_rows
   where transaction_id = any(v_ids) group by transaction_id having sum(debit) <> sum(credit) limit 1;
  if found then
    raise exception 'accounting transaction % does not balance: debit % <> credit %', v_bad.transaction_id, v_bad.d, v_bad.c
      using errcode = '23514', constraint = 'ledger_balanced';
  end if;
  return v_sent;
end $fn$;
`,
  ),
  sqlMigration(
    'accounting_0016_day_balances',
    `
-- Decision 215. The trial balance, the balance sheet, the profit and loss and an account's
-- opening balance summed every ledger row before their day: 1.4 s for a balance sheet over eleven
-- million rows, growing with every year kept. They read sums per organisation, book, day and
-- account instead (with the number of rows, which an account's ledger answers as its total).
-- Each statement that writes ledger rows appends its sums to
-- ledger_day_deltas (a trigger over the statement's rows, so concurrent postings never wait for
-- one another on a shared balance row); ledger_day_balances_compact folds deltas into
-- ledger_day_balances, one replica at a time; a reader sums both in one statement, so it sees
-- every row its snapshot sees, once.
create table ledger_day_balances (
  org_id bigint not null,
  book_id bigint not null,
  date_posting date not null,
  gl_account_number text not null,
  debit numeric not null,
  credit numeric not null,
  lines bigint not null,
  primary key (org_id, book_id, date_posting, gl_account_number)
);
create table ledger_day_deltas (
  id bigserial primary key,
  org_id bigint not null,
  book_id bigint not null,
  date_posting date not null,
  gl_account_number text not null,
  debit numeric not null,
  credit numeric not null,
  lines bigint not null
);
create index ledger_day_deltas_day on ledger_day_deltas (org_id, book_id, date_posting);

create function ledger_rows_day_deltas() returns trigger language plpgsql as $fn$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    insert into ledger_day_deltas (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
    select org_id, book_id, date_posting, gl_account_number, -sum(debit), -sum(credit), -count(*) from removed group by 1, 2, 3, 4;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into ledger_day_deltas (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
    select org_id, book_id, date_posting, gl_account_number, sum(debit), sum(credit), count(*) from added group by 1, 2, 3, 4;
  end if;
  return null;
end $fn$;
create trigger ledger_rows_day_added after insert on ledger_rows
  referencing new table as added for each statement execute function ledger_rows_day_deltas();
create trigger ledger_rows_day_removed after delete on ledger_rows
  referencing old table as removed for each statement execute function ledger_rows_day_deltas();
create trigger ledger_rows_day_changed after update on ledger_rows
  referencing old table as removed new table as added for each statement execute function ledger_rows_day_deltas();

-- Folds up to p_limit of the oldest deltas into the balances; answers how many (0 when another
-- session is folding). Deltas of postings not yet committed are not seen and wait for a later call.
create function ledger_day_balances_compact(p_limit int) returns int language plpgsql as $fn$
declare
  v_n int;
begin
  if not pg_try_advisory_xact_lock(hashtext('ledger_day_balances_compact')) then return 0; end if;
  with moved as (
    delete from ledger_day_deltas where id in (select id from ledger_day_deltas order by id limit p_limit)
    returning org_id, book_id, date_posting, gl_account_number, debit, credit, lines
  ), folded as (
    insert into ledger_day_balances as b (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
    select org_id, book_id, date_posting, gl_account_number, sum(debit), sum(credit), sum(lines) from moved group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (org_id, book_id, date_posting, gl_account_number)
      do update set debit = b.debit + excluded.debit, credit = b.credit + excluded.credit, lines = b.lines + excluded.lines
    returning 1
  )
  select count(*) into v_n from moved;
  return v_n;
end $fn$;

-- An organisation's balances summed again from its rows, for rows written with the triggers
-- off (a bulk load). Writers of the ledger wait while it runs.
create function ledger_day_balances_refresh(p_org bigint) returns void language plpgsql as $fn$
begin
  lock table ledger_rows in share mode;
  perform pg_advisory_xact_lock(hashtext('ledger_day_balances_compact'));
  delete from ledger_day_deltas where org_id = p_org;
  delete from ledger_day_balances where org_id = p_org;
  insert into ledger_day_balances (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
  select org_id, book_id, date_posting, gl_account_number, sum(debit), sum(credit), count(*) from ledger_rows where org_id = p_org group by 1, 2, 3, 4;
end $fn$;

-- the ledger so far (the triggers above hold off every writer until this migration commits)
insert into ledger_day_balances (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
select org_id, book_id, date_posting, gl_account_number, sum(debit), sum(credit), count(*) from ledger_rows group by 1, 2, 3, 4;
`,
  ),
];
