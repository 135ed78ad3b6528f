/** The filer's data of a Czech company, as PUT /v1/settings/tax-filing takes it (tests of the settings and the filings). */
export const COMPANY_FILER = {
  tax_office: '451',
  tax_office_workplace: '2001',
  filer_type: 'legal_person',
  signatory: { first_name: 'Jan', last_name: 'Novák', position: 'jednatel' },
  prepared_by: { first_name: 'Eva', last_name: 'Svobodová', phone: '+420601123456' },
  phone: '+420222333444',
  email: 'ucetni@novak-consulting.example',
  data_box: 'ab12cd3',
  period: 'monthly',
};
