import { sqlMigration } from '@ledgerline/service-kit';

/**
 * The ledger. Append-only: rows are never updated or deleted (a trigger refuses it; the only
 * exception is a ledger rebuild, which sets `ledger.rebuild = on` for its own transaction), and a
 * deferred constraint trigger refuses, at commit, any accounting transaction whose rows do not
 * balance (Σ debit = Σ credit), so no code path can store an unbalanced entry.
 */
export const migrations = [
  sqlMigration(
    'accounting_0001_ledger',
    `
create table gl_accounts (
  id bigserial primary key,
  org_id bigint not null,
  number text not null,
  name_cs text not null,
  name_en text not null,
  description text,
  unique (org_id, number)
);

create table books (
  org_id bigint not null,
  id bigint not null,
  name text not null,
  primary key (org_id, id)
);

create table accounting_transactions (
  id bigserial primary key,
  uid uuid not null,
  org_id bigint not null,
  book_id bigint not null,
  type text not null,
  source_type text not null,
  source_id bigint not null,
  source_version int not null default 1,
  entry_kind text not null default 'posting' check (entry_kind in ('posting', 'reversal')),
  source_event_id text,
  reverses_id bigint references accounting_transactions(id),
  accounting_status text not null default 'posted' check (accounting_status in ('posted', 'reversed')),
  no text,
  vendor_doc_no text,
  credited_doc_no text,
  payment_reference text,
  description text,
  date_issued date,
  date_due date,
  date_posting date not null,
  date_taxable date,
  date_tax_applied date,
  currency text not null,
  legal_currency text not null,
  precision int not null default 2,
  transaction_type jsonb,
  contact jsonb,
  bank_account jsonb,
  tax_nexus jsonb,
  paid_record jsonb,
  fx_rates jsonb not null default '[]',
  tax_deduction_ratio numeric(18,6),
  net_deduction_ratio numeric(18,6),
  amount_paid numeric(18,2),
  amount_due numeric(18,2),
  total numeric(18,2) not null,
  created_at timestamptz not null default now(),
  edited_at timestamptz,
  unique (org_id, source_type, source_id, source_version, entry_kind),
  unique (org_id, uid)
);
create index accounting_transactions_org_date on accounting_transactions (org_id, date_posting, id);

create table ledger_rows (
  id bigserial primary key,
  org_id bigint not null,
  transaction_id bigint not null references accounting_transactions(id),
  book_id bigint not null,
  ord int not null,
  role text not null,
  date_posting date not null,
  gl_account_number text not null,
  debit numeric(18,2) not null default 0 check (debit >= 0),
  credit numeric(18,2) not null default 0 check (credit >= 0),
  description text,
  currency text,
  payment_amount numeric(18,2),
  payment_reference text,
  contact jsonb,
  paid_record jsonb,
  fx_rates jsonb,
  tax_deduction_ratio numeric(18,6),
  net_deduction_ratio numeric(18,6)
);
create index ledger_rows_tb on ledger_rows (org_id, book_id, date_posting, gl_account_number) include (debit, credit);
create index ledger_rows_tx on ledger_rows (transaction_id);

create table ledger_tax_rows (
  id bigserial primary key,
  org_id bigint not null,
  transaction_id bigint not null references accounting_transactions(id),
  row_id bigint not null references ledger_rows(id),
  ord int not null,
  gl_account_number text not null,
  debit numeric(18,2) not null default 0,
  credit numeric(18,2) not null default 0,
  description text,
  currency text,
  tax_rate numeric(9,4),
  tax_rate_rc numeric(9,4),
  is_reverse_charge boolean not null default false,
  tax_index int,
  tax_code text,
  tax_name text,
  tax_base_in numeric(18,2), tax_base_in_leg numeric(18,2),
  tax_base_out numeric(18,2), tax_base_out_leg numeric(18,2),
  tax_amount_in numeric(18,2), tax_amount_in_leg numeric(18,2),
  tax_amount_claim numeric(18,2), tax_amount_claim_leg numeric(18,2),
  tax_amount_out numeric(18,2), tax_amount_out_leg numeric(18,2),
  tax_return_base_in text, tax_return_base_out text,
  tax_return_amount_claim text, tax_return_amount_out text,
  tax_control_statement text,
  tax_eu_sales_report text,
  tax_deduction_ratio numeric(18,6),
  net_deduction_ratio numeric(18,6)
);
create index ledger_tax_rows_tx on ledger_tax_rows (transaction_id);

-- Σ debit = Σ credit per accounting transaction, checked at commit.
create function ledger_check_balance() returns trigger language plpgsql as $fn$
declare
  tx bigint := coalesce(new.transaction_id, old.transaction_id);
  d numeric; c numeric;
begin
  select coalesce(sum(debit), 0), coalesce(sum(credit), 0) into d, c from ledger_rows where transaction_id = tx;
  if d <> c then
    raise exception 'accounting transaction % does not balance: debit % <> credit %', tx, d, c
      using errcode = '23514', constraint = 'ledger_balanced';
  end if;
  return null;
end $fn$;
create constraint trigger ledger_balanced after insert or update or delete on ledger_rows
  deferrable initially deferred for each row execute function ledger_check_balance();

-- Append-only: amounts and rows are never changed or removed (a rebuild excepted).
create function ledger_append_only() returns trigger language plpgsql as $fn$
begin
  if coalesce(current_setting('ledger.rebuild', true), '') = 'on' then
    return coalesce(new, old);
  end if;
  raise exception 'the ledger is append-only: % on % is refused', tg_op, tg_table_name using errcode = '55000';
end $fn$;
create trigger ledger_rows_append_only before update or delete on ledger_rows
  for each row execute function ledger_append_only();
create trigger ledger_tax_rows_append_only before update or delete on ledger_tax_rows
  for each row execute function ledger_append_only();

-- On a transaction header only the status may change (posted → reversed) and edited_at with it.
create function accounting_transaction_guard() returns trigger language plpgsql as $fn$
begin
  if coalesce(current_setting('ledger.rebuild', true), '') = 'on' then
    return coalesce(new, old);
  end if;
  if tg_op = 'DELETE' then
    raise exception 'the ledger is append-only: accounting transactions are never deleted' using errcode = '55000';
  end if;
  if (to_jsonb(new) - 'accounting_status' - 'edited_at') <> (to_jsonb(old) - 'accounting_status' - 'edited_at') then
    raise exception 'the ledger is append-only: only accounting_status may change' using errcode = '55000';
  end if;
  return new;
end $fn$;
create trigger accounting_transactions_guard before update or delete on accounting_transactions
  for each row execute function accounting_transaction_guard();
`,
  ),
  sqlMigration(
    'accounting_0002_organisation_profiles',
    `
-- Local replica of the organisation profile (settings.organisation.updated): the legal currency
-- and country the ledger posts and reports in.
create table organisation_profiles (
  org_id bigint primary key,
  country text not null,
  legal_currency text not null,
  is_vat_payer boolean not null default true,
  updated_at timestamptz not null default now()
);
`,
  ),
  sqlMigration(
    'accounting_0003_kit_organisation_replica',
    `
-- The organisation replica moved to the kit's kit_organisations; the rows move with it. This table
-- never recorded the event time, so the copies count as older than any event still to come.
insert into kit_organisations (org_id, country, legal_currency, is_vat_payer, profile, source_time, updated_at)
select org_id, upper(country), legal_currency, is_vat_payer,
       jsonb_build_object('id', org_id, 'country', upper(country), 'legal_currency', legal_currency, 'is_vat_payer', is_vat_payer),
       '-infinity', updated_at
  from organisation_profiles
on conflict (org_id) do nothing;
drop table organisation_profiles;
`,
  ),
  sqlMigration(
    'accounting_0004_post_entry_function',
    `
-- Decimal columns of a row as JSON strings: to_jsonb keeps a numeric exact ("100.00"), but a
-- client parsing JSON would turn it into a double. Integers (ids, ord, versions) stay numbers.
create function ledger_json_row(r jsonb) returns jsonb language sql immutable as $fn$
  select coalesce(jsonb_object_agg(k, case when jsonb_typeof(v) = 'number' and position('.' in v::text) > 0 then to_jsonb(v::text) else v end), '{}')
    from jsonb_each(r) as e(k, v)
$fn$;

-- One posting of a source document in one round trip: the per-document lock, the version check,
-- the header, accounts an item names, the rows, the tax rows and the balance check. Every
-- statement here takes a fresh snapshot (read committed), so the version check sees what a
-- concurrent replica committed while this one waited for the lock. A newer version of a document
-- whose entry is posted answers {"replaces": id}: the caller reverses it (rare; kept in code).
-- Rows arrive with their column names; a tax row names its ledger row by "row_ord".
create function ledger_post_entry(p_org bigint, p_lock text, p_tx jsonb, p_rows jsonb, p_taxes jsonb, p_accounts text[])
returns jsonb language plpgsql as $fn$
declare
  v_source_type text := p_tx->>'source_type';
  v_source_id bigint := (p_tx->>'source_id')::bigint;
  v_version int := (p_tx->>'source_version')::int;
  v_latest record;
  v_tx accounting_transactions;
  v_rows jsonb;
  v_taxes jsonb;
  v_accounts jsonb;
begin
  perform pg_advisory_xact_lock(hashtext(p_lock));
  if p_tx->>'entry_kind' = 'posting' then
    select id, source_version, accounting_status into v_latest from accounting_transactions
     where org_id = p_org and source_type = v_source_type and source_id = v_source_id and entry_kind = 'posting'
     order by source_version desc limit 1;
    if found then
      if v_latest.source_version = v_version then return jsonb_build_object('skipped', 'duplicate'); end if;
      if v_latest.source_version > v_version then return jsonb_build_object('skipped', 'stale_version'); end if;
      if v_latest.accounting_status = 'posted' then return jsonb_build_object('replaces', v_latest.id); end if;
    end if;
  end if;
  insert into accounting_transactions
  select * from jsonb_populate_record(null::accounting_transactions,
    p_tx || jsonb_build_object('id', nextval(pg_get_serial_sequence('accounting_transactions', 'id')), 'org_id', p_org, 'created_at', now()))
  on conflict do nothing
  returning * into v_tx;
  if v_tx.id is null then return jsonb_build_object('skipped', 'duplicate'); end if;
  -- one order everywhere, so concurrent postings never deadlock on the chart
  insert into gl_accounts (org_id, number, name_cs, name_en)
  select p_org, n, 'Účet ' || n, 'Account ' || n from (select distinct unnest(p_accounts) as n) a order by n
  on conflict (org_id, number) do nothing;
  with r as (
    insert into ledger_rows
    select * from jsonb_populate_recordset(null::ledger_rows, (
      select jsonb_agg(x || jsonb_build_object('id', nextval(pg_get_serial_sequence('ledger_rows', 'id')), 'org_id', p_org, 'transaction_id', v_tx.id) order by i)
        from jsonb_array_elements(p_rows) with ordinality as e(x, i)))
    returning *
  ), t as (
    insert into ledger_tax_rows
    select * from jsonb_populate_recordset(null::ledger_tax_rows, (
      select jsonb_agg(x || jsonb_build_object('id', nextval(pg_get_serial_sequence('ledger_tax_rows', 'id')), 'org_id', p_org, 'transaction_id', v_tx.id, 'row_id', r.id) order by i)
        from jsonb_array_elements(p_taxes) with ordinality as e(x, i) join r on r.ord = (x->>'row_ord')::int))
    returning *
  )
  select (select jsonb_agg(ledger_json_row(to_jsonb(r)) order by r.ord) from r),
         (select coalesce(jsonb_agg(ledger_json_row(to_jsonb(t)) order by t.ord), '[]') from t)
    into v_rows, v_taxes;
  set constraints ledger_balanced immediate;
  set constraints ledger_balanced deferred;
  select coalesce(jsonb_agg(to_jsonb(a)), '[]') into v_accounts from gl_accounts a
   where a.org_id = p_org and a.number in (select x->>'gl_account_number' from jsonb_array_elements(p_rows || p_taxes) x);
  return jsonb_build_object('transaction', ledger_json_row(to_jsonb(v_tx)), 'rows', coalesce(v_rows, '[]'), 'tax_rows', v_taxes, 'accounts', v_accounts);
end $fn$;
`,
  ),
  sqlMigration(
    'accounting_0005_store_entry_answers_what_it_added',
    `
-- ledger_post_entry answered every stored row whole, each column passed through ledger_json_row
-- (jsonb_each and an aggregate per row, a query planned on every call) so decimals stayed exact
-- strings: about 0.55 of its 1.4 ms per posting (decision 109). The caller already holds what it
-- sent, so ledger_store_entry answers of each row only the columns the caller did not send — ids,
-- links, created_at, defaults — and the caller lays them over what it sent. Otherwise the same
-- function. ledger_post_entry stays for replicas still running the code that calls it.
create function ledger_store_entry(p_org bigint, p_lock text, p_tx jsonb, p_rows jsonb, p_taxes jsonb, p_accounts text[])
returns jsonb language plpgsql as $fn$
declare
  v_source_type text := p_tx->>'source_type';
  v_source_id bigint := (p_tx->>'source_id')::bigint;
  v_version int := (p_tx->>'source_version')::int;
  v_latest record;
  v_tx accounting_transactions;
  v_rows jsonb;
  v_taxes jsonb;
  v_accounts jsonb;
begin
  perform pg_advisory_xact_lock(hashtext(p_lock));
  if p_tx->>'entry_kind' = 'posting' then
    select id, source_version, accounting_status into v_latest from accounting_transactions
     where org_id = p_org and source_type = v_source_type and source_id = v_source_id and entry_kind = 'posting'
     order by source_version desc limit 1;
    if found then
      if v_latest.source_version = v_version then return jsonb_build_object('skipped', 'duplicate'); end if;
      if v_latest.source_version > v_version then return jsonb_build_object('skipped', 'stale_version'); end if;
      if v_latest.accounting_status = 'posted' then return jsonb_build_object('replaces', v_latest.id); end if;
    end if;
  end if;
  insert into accounting_transactions
  select * from jsonb_populate_record(null::accounting_transactions,
    p_tx || jsonb_build_object('id', nextval(pg_get_serial_sequence('accounting_transactions', 'id')), 'org_id', p_org, 'created_at', now()))
  on conflict do nothing
  returning * into v_tx;
  if v_tx.id is null then return jsonb_build_object('skipped', 'duplicate'); end if;
  -- one order everywhere, so concurrent postings never deadlock on the chart
  insert into gl_accounts (org_id, number, name_cs, name_en)
  select p_org, n, 'Účet ' || n, 'Account ' || n from (select distinct unnest(p_accounts) as n) a order by n
  on conflict (org_id, number) do nothing;
  with r as (
    insert into ledger_rows
    select * from jsonb_populate_recordset(null::ledger_rows, (
      select jsonb_agg(x || jsonb_build_object('id', nextval(pg_get_serial_sequence('ledger_rows', 'id')), 'org_id', p_org, 'transaction_id', v_tx.id) order by i)
        from jsonb_array_elements(p_rows) with ordinality as e(x, i)))
    returning *
  ), t as (
    insert into ledger_tax_rows
    select * from jsonb_populate_recordset(null::ledger_tax_rows, (
      select jsonb_agg(x || jsonb_build_object('id', nextval(pg_get_serial_sequence('ledger_tax_rows', 'id')), 'org_id', p_org, 'transaction_id', v_tx.id, 'row_id', r.id) order by i)
        from jsonb_array_elements(p_taxes) with ordinality as e(x, i) join r on r.ord = (x->>'row_ord')::int))
    returning *
  )
  -- of each row only what the caller did not send: ids, links, defaults (row n was sent as element n - 1)
  select (select jsonb_agg((to_jsonb(r) - array(select jsonb_object_keys(p_rows->(r.ord - 1)))) || jsonb_build_object('ord', r.ord) order by r.ord) from r),
         (select coalesce(jsonb_agg((to_jsonb(t) - array(select jsonb_object_keys(p_taxes->(t.ord - 1)))) || jsonb_build_object('ord', t.ord) order by t.ord), '[]') from t)
    into v_rows, v_taxes;
  set constraints ledger_balanced immediate;
  set constraints ledger_balanced deferred;
  select coalesce(jsonb_agg(to_jsonb(a)), '[]') into v_accounts from gl_accounts a
   where a.org_id = p_org and a.number in (select x->>'gl_account_number' from jsonb_array_elements(p_rows || p_taxes) x);
  return jsonb_build_object('transaction', to_jsonb(v_tx) - array(select jsonb_object_keys(p_tx)), 'rows', coalesce(v_rows, '[]'), 'tax_rows', v_taxes, 'accounts', v_accounts);
end $fn$;
`,
  ),
  sqlMigration(
    'accounting_0006_store_entries',
    `
-- The postings of a batch of events in one round trip (decision 111): each stored exactly as
-- ledger_store_entry stores one, in the order given (the caller sorts them by lock, so two
-- batches never wait for each other in a circle), answering an array of its answers. No exception
-- block: a posting that fails fails the batch, whose events the consumer then applies one by
-- one, so the batch takes no subtransaction per posting.
create function ledger_store_entries(p_org bigint, p_entries jsonb)
returns jsonb language plpgsql as $fn$
declare
  v_entry jsonb;
  v_answers jsonb[] := '{}';
begin
  for v_entry in select e from jsonb_array_elements(p_entries) as e loop
    v_answers := v_answers || ledger_store_entry(p_org, v_entry->>'lock', v_entry->'tx', v_entry->'rows', v_entry->'taxes',
                                                 array(select jsonb_array_elements_text(v_entry->'accounts')));
  end loop;
  return to_jsonb(v_answers);
end $fn$;
`,
  ),
  sqlMigration(
    'accounting_0007_postings_by_number',
    `
-- A credit finds the document it credits by id or by number. No index held the number, so the
-- lookup read every posting of the organisation's type: 85 ms for each credit note of an
-- organisation with 200,000 invoices, growing with the ledger (decision 112). With this index
-- the two conditions are two index lookups (0.1 ms).
-- (if not exists: an operator with a large ledger may build it beforehand with create index
-- concurrently, which a migration in a transaction cannot.)
create index if not exists accounting_transactions_posting_no on accounting_transactions (org_id, source_type, no)
  where entry_kind = 'posting' and no is not null;
`,
  ),
  sqlMigration(
    'accounting_0008_insert_entries',
    `
-- ledger_store_entry spent 0.5 of its 1.35 ms per posting (measured 2026-11-26, 400 postings per
-- run, alternated with variants) rebuilding each row as JSON with its id drawn from the
-- sequence by name, reading it back through jsonb_populate_recordset with select *, and
-- answering every stored row as JSON less the keys sent (decision 125). ledger_insert_entry does
-- the same work with each table's columns named: ids come from the columns' defaults, each row
-- is read from the sent JSON once, and the answer is only what the database chose (the
-- header's id and created_at, the rows' and tax rows' ids in the order sent). A column the sent
-- JSON lacks is stored null, as before. A column added to one of these tables must be added to
-- this function's lists (a test compares them with the tables). ledger_store_entry and
-- ledger_store_entries stay for replicas still running the code that calls them.
create function ledger_insert_entry(p_org bigint, p_lock text, p_tx jsonb, p_rows jsonb, p_taxes jsonb, p_accounts text[])
returns jsonb language plpgsql as $fn$
declare
  v_source_type text := p_tx->>'source_type';
  v_source_id bigint := (p_tx->>'source_id')::bigint;
  v_version int := (p_tx->>'source_version')::int;
  v_latest record;
  v_tx_id bigint;
  v_created_at timestamptz;
  v_row_ids jsonb;
  v_tax_row_ids jsonb;
  v_accounts jsonb;
begin
  perform pg_advisory_xact_lock(hashtext(p_lock));
  if p_tx->>'entry_kind' = 'posting' then
    select id, source_version, accounting_status into v_latest from accounting_transactions
     where org_id = p_org and source_type = v_source_type and source_id = v_source_id and entry_kind = 'posting'
     order by source_version desc limit 1;
    if found then
      if v_latest.source_version = v_version then return jsonb_build_object('skipped', 'duplicate'); end if;
      if v_latest.source_version > v_version then return jsonb_build_object('skipped', 'stale_version'); end if;
      if v_latest.accounting_status = 'posted' then return jsonb_build_object('replaces', v_latest.id); end if;
    end if;
  end if;
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
    from jsonb_populate_record(null::accounting_transactions, p_tx) x
  on conflict do nothing
  returning id, created_at into v_tx_id, v_created_at;
  if v_tx_id is null then return jsonb_build_object('skipped', 'duplicate'); end if;
  -- one order everywhere, so concurrent postings never deadlock on the chart
  insert into gl_accounts (org_id, number, name_cs, name_en)
  select p_org, n, 'Účet ' || n, 'Account ' || n from (select distinct unnest(p_accounts) as n) a order by n
  on conflict (org_id, number) do nothing;
  with r as (
    insert into ledger_rows (
        org_id, transaction_id, book_id, ord, role, date_posting, gl_account_number, debit, credit,
        description, currency, payment_amount, payment_reference, contact, paid_record, fx_rates,
        tax_deduction_ratio, net_deduction_ratio
    )
    select p_org, v_tx_id, x.book_id, x.ord, x.role, x.date_posting, x.gl_account_number, x.debit, x.credit, x.description,
      x.currency, x.payment_amount, x.payment_reference, x.contact, x.paid_record, x.fx_rates,
      x.tax_deduction_ratio, x.net_deduction_ratio
      from jsonb_populate_recordset(null::ledger_rows, p_rows) x
    returning id, ord
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
    select p_org, v_tx_id, r.id, x.ord, x.gl_account_number, x.debit, x.credit, x.description, x.currency, x.tax_rate, x.tax_rate_rc,
      x.is_reverse_charge, x.tax_index, x.tax_code, x.tax_name, x.tax_base_in, x.tax_base_in_leg,
      x.tax_base_out, x.tax_base_out_leg, x.tax_amount_in, x.tax_amount_in_leg, x.tax_amount_claim,
      x.tax_amount_claim_leg, x.tax_amount_out, x.tax_amount_out_leg, x.tax_return_base_in,
      x.tax_return_base_out, x.tax_return_amount_claim, x.tax_return_amount_out,
      x.tax_control_statement, x.tax_eu_sales_report, x.tax_deduction_ratio, x.net_deduction_ratio
      from jsonb_array_elements(p_taxes) e(j)
      cross join lateral jsonb_populate_record(null::ledger_tax_rows, e.j) x
      join r on r.ord = (e.j->>'row_ord')::int
    returning id, ord
  )
  select (select jsonb_agg(id order by ord) from r), (select coalesce(jsonb_agg(id order by ord), '[]') from t)
    into v_row_ids, v_tax_row_ids;
  set constraints ledger_balanced immediate;
  set constraints ledger_balanced deferred;
  select coalesce(jsonb_agg(to_jsonb(a)), '[]') into v_accounts from gl_accounts a
   where a.org_id = p_org and a.number in (select x->>'gl_account_number' from jsonb_array_elements(p_rows || p_taxes) x);
  return jsonb_build_object('transaction', jsonb_build_object('id', v_tx_id, 'created_at', v_created_at),
                            'row_ids', coalesce(v_row_ids, '[]'), 'tax_row_ids', v_tax_row_ids, 'accounts', v_accounts);
end $fn$;

-- The postings of a batch, as ledger_store_entries stores them (decision 111), each by
-- ledger_insert_entry.
create function ledger_insert_entries(p_org bigint, p_entries jsonb)
returns jsonb language plpgsql as $fn$
declare
  v_entry jsonb;
  v_answers jsonb[] := '{}';
begin
  for v_entry in select e from jsonb_array_elements(p_entries) as e loop
    v_answers := v_answers || ledger_insert_entry(p_org, v_entry->>'lock', v_entry->'tx', v_entry->'rows', v_entry->'taxes',
                                                  array(select jsonb_array_elements_text(v_entry->'accounts')));
  end loop;
  return to_jsonb(v_answers);
end $fn$;
`,
  ),
  // manual journal entries (decision 165): the entries themselves; their postings are ledger
  // entries like any document's, with source_type journal_entry
  sqlMigration(
    'accounting_0009_journal_entries',
    `
create table journal_entries (
  id bigserial primary key,
  org_id bigint not null,
  no text not null,
  date_posting date not null,
  description text not null,
  reference text,
  currency text not null,
  total numeric(18,2) not null check (total > 0),
  lines jsonb not null,
  reverses_id bigint references journal_entries(id),
  reversed_by_id bigint references journal_entries(id),
  created_at timestamptz not null default now(),
  unique (org_id, no),
  -- an entry is reversed at most once, whatever races
  unique (org_id, reverses_id)
);
create index journal_entries_by_day on journal_entries (org_id, date_posting, id);

-- the last number given per organisation and year; taken in the entry's own transaction, so a
-- refused entry gives its number back and the series has no gaps
create table journal_entry_numbers (
  org_id bigint not null,
  year int not null,
  last int not null,
  primary key (org_id, year)
);
`,
  ),
  // who posted a journal entry: the credential the request came with (decision 165)
  sqlMigration(
    'accounting_0010_journal_entry_author',
    `alter table journal_entries add column created_by text not null default 'unknown';
     alter table journal_entries alter column created_by drop default;`,
  ),
  // what posted an entry: an accountant, or the closing of a year (decision 170)
  sqlMigration(
    'accounting_0011_journal_entry_kind',
    `alter table journal_entries add column kind text not null default 'manual' check (kind in ('manual', 'year_end_close'));`,
  ),
];
