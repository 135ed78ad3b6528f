-- A rebuild's run of postings new to the ledger, one insert per table (decision 214). First made by
-- accounting_0015; this file is its definition in force.
create or replace function ledger_replay_entries(p_org bigint, p_entries jsonb)
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
