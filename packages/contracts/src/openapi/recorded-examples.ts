import type { OperationExample } from './operation-example.js';

/*
 * Request and response examples of every operation, recorded from the live scenario in
 * tests/platform/openapi-examples.e2e.test.ts (RECORD_OPENAPI_EXAMPLES=1). Do not edit by hand.
 */
export const RECORDED_EXAMPLES: Record<string, OperationExample> = {
  "listApiKeys": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 2,
          "name": "Admin key",
          "prefix": "ak_sIIXe2vN",
          "scopes": [
            "admin"
          ],
          "status": "active",
          "created_at": "2026-12-03T06:52:58.785Z",
          "expires_at": null,
          "last_used_at": "2026-12-03T06:52:58.840Z",
          "revoked_at": null
        },
        {
          "id": 3,
          "name": "Shop integration",
          "prefix": "ak_OAXIzqox",
          "scopes": [
            "sales:write",
            "finance:read"
          ],
          "status": "active",
          "created_at": "2026-12-03T06:52:59.069Z",
          "expires_at": "2027-11-30T00:00:00.000Z",
          "last_used_at": null,
          "revoked_at": null
        }
      ],
      "aggregations": []
    }
  },
  "createApiKey": {
    "request": {
      "name": "Shop integration",
      "scopes": [
        "sales:write",
        "finance:read"
      ],
      "expires_at": "2027-11-30T00:00:00Z"
    },
    "response": {
      "id": 3,
      "name": "Shop integration",
      "prefix": "ak_OAXIzqox",
      "scopes": [
        "sales:write",
        "finance:read"
      ],
      "status": "active",
      "created_at": "2026-12-03T06:52:59.069Z",
      "expires_at": "2027-11-30T00:00:00.000Z",
      "last_used_at": null,
      "revoked_at": null,
      "key": "ak_EXAMPLExxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    }
  },
  "getApiKey": {
    "response": {
      "id": 3,
      "name": "Shop integration",
      "prefix": "ak_OAXIzqox",
      "scopes": [
        "sales:write",
        "finance:read"
      ],
      "status": "active",
      "created_at": "2026-12-03T06:52:59.069Z",
      "expires_at": "2027-11-30T00:00:00.000Z",
      "last_used_at": null,
      "revoked_at": null
    }
  },
  "updateApiKey": {
    "request": {
      "name": "E-shop integration",
      "scopes": [
        "sales:write",
        "finance:read",
        "finance:write"
      ]
    },
    "response": {
      "id": 3,
      "name": "E-shop integration",
      "prefix": "ak_OAXIzqox",
      "scopes": [
        "sales:write",
        "finance:read",
        "finance:write"
      ],
      "status": "active",
      "created_at": "2026-12-03T06:52:59.069Z",
      "expires_at": "2027-11-30T00:00:00.000Z",
      "last_used_at": null,
      "revoked_at": null
    }
  },
  "deleteApiKey": {
    "response": {
      "id": 3,
      "deleted": true
    }
  },
  "revokeApiKey": {
    "response": {
      "id": 3,
      "name": "E-shop integration",
      "prefix": "ak_OAXIzqox",
      "scopes": [
        "sales:write",
        "finance:read",
        "finance:write"
      ],
      "status": "revoked",
      "created_at": "2026-12-03T06:52:59.069Z",
      "expires_at": "2027-11-30T00:00:00.000Z",
      "last_used_at": null,
      "revoked_at": "2026-12-03T06:52:59.136Z"
    }
  },
  "putHostingIntegration": {
    "request": {
      "source": "MARKETPLACE",
      "name": "Web shop",
      "config": {
        "is_tax_payer": true,
        "taxes_included": true,
        "auto_send_invoice": true,
        "numbering_mask": "WEB{YYYY}{####}"
      },
      "api_url": "https://shop.example/api",
      "api_key": "shop-api-key-0000000000000000"
    },
    "response": {
      "id": "web-shop",
      "config": {
        "is_tax_payer": true,
        "taxes_included": true,
        "auto_send_invoice": true,
        "numbering_mask": "WEB{YYYY}{####}"
      },
      "name": "Web shop",
      "signature": null,
      "source": "MARKETPLACE",
      "api_url": "https://shop.example/api",
      "api_key": "****0000"
    }
  },
  "createBankIntegration": {
    "request": {
      "type": "bank_statement",
      "provider_key": "fio",
      "name": "Fio current account",
      "config": {
        "account_number": "2900123456/2010",
        "format": "gpc"
      }
    },
    "response": {
      "id": 1,
      "key": null,
      "type": "bank_statement",
      "provider_key": "fio",
      "name": "Fio current account",
      "statements": null
    }
  },
  "saveTemplate": {
    "request": {
      "code": "minimal",
      "name": "Minimal invoice",
      "html_template": "<h1>{{ document.no }}</h1><p>{{ document.customer.business_name }}</p><p>{{ document.total_amount }} {{ document.currency }}</p>",
      "pdf_options": {
        "page_size": "A4",
        "margin_top": 15,
        "margin_bottom": 15
      },
      "languages": [
        "cs-CZ",
        "en-US"
      ]
    },
    "response": {
      "id": 1,
      "code": "minimal",
      "name": "Minimal invoice",
      "html_template": "<h1>{{ document.no }}</h1><p>{{ document.customer.business_name }}</p><p>{{ document.total_amount }} {{ document.currency }}</p>",
      "url": null,
      "file": null,
      "design": null,
      "pdf_options": {
        "page_size": "A4",
        "margin_top": 15,
        "margin_bottom": 15
      },
      "config": null,
      "l10n": null,
      "languages": [
        "cs-CZ",
        "en-US"
      ]
    }
  },
  "listTemplates": {
    "response": [
      {
        "id": 1,
        "code": "minimal",
        "name": "Minimal invoice",
        "design": null,
        "languages": [
          "cs-CZ",
          "en-US"
        ]
      }
    ]
  },
  "listDeliveryConditions": {
    "response": {
      "total": 11,
      "from": 0,
      "take": 3,
      "entities": [
        {
          "id": 1,
          "code": "EXW",
          "name": "Ze závodu",
          "l10n": [
            {
              "id": 101,
              "culture": "en-US",
              "name": "Ex Works"
            },
            {
              "id": 102,
              "culture": "cs-CZ",
              "name": "Ze závodu"
            },
            {
              "id": 103,
              "culture": "sk-SK",
              "name": "Zo závodu"
            }
          ]
        },
        {
          "id": 2,
          "code": "FCA",
          "name": "Vyplaceně dopravci",
          "l10n": [
            {
              "id": 201,
              "culture": "en-US",
              "name": "Free Carrier"
            },
            {
              "id": 202,
              "culture": "cs-CZ",
              "name": "Vyplaceně dopravci"
            },
            {
              "id": 203,
              "culture": "sk-SK",
              "name": "Franko dopravca"
            }
          ]
        },
        {
          "id": 3,
          "code": "CPT",
          "name": "Přeprava placena do",
          "l10n": [
            {
              "id": 301,
              "culture": "en-US",
              "name": "Carriage Paid To"
            },
            {
              "id": 302,
              "culture": "cs-CZ",
              "name": "Přeprava placena do"
            },
            {
              "id": 303,
              "culture": "sk-SK",
              "name": "Preprava platená do"
            }
          ]
        }
      ],
      "aggregations": []
    }
  },
  "createClient": {
    "request": {
      "name": "Reporting tool",
      "scopes": [
        "accounting:read",
        "sales:read"
      ]
    },
    "response": {
      "id": 1,
      "client_id": "cl_8zwrKnmcOLvINJ1bSmz7_4M8Bcu",
      "client_secret": "cs_EXAMPLExxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      "name": "Reporting tool",
      "scopes": [
        "accounting:read",
        "sales:read"
      ]
    }
  },
  "listClients": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "client_id": "cl_8zwrKnmcOLvINJ1bSmz7_4M8Bcu",
          "name": "Reporting tool",
          "scopes": [
            "accounting:read",
            "sales:read"
          ],
          "status": "active",
          "created_at": "2026-12-03T06:52:59.171Z",
          "last_used_at": "2026-12-03T06:52:59.193Z",
          "revoked_at": null
        }
      ],
      "aggregations": []
    }
  },
  "getClient": {
    "response": {
      "id": 1,
      "client_id": "cl_8zwrKnmcOLvINJ1bSmz7_4M8Bcu",
      "name": "Reporting tool",
      "scopes": [
        "accounting:read",
        "sales:read"
      ],
      "status": "active",
      "created_at": "2026-12-03T06:52:59.171Z",
      "last_used_at": "2026-12-03T06:52:59.193Z",
      "revoked_at": null
    }
  },
  "revokeClient": {
    "response": {
      "id": 2,
      "client_id": "cl_xP2OeXxKb8E0D3Rbp6rX_2gKvW2",
      "name": "Old reporting tool",
      "scopes": [
        "accounting:read"
      ],
      "status": "revoked",
      "created_at": "2026-12-03T06:52:59.285Z",
      "last_used_at": null,
      "revoked_at": "2026-12-03T06:52:59.302Z"
    }
  },
  "deleteClient": {
    "response": {
      "id": 2,
      "deleted": true
    }
  },
  "issueAccessToken": {
    "request": {
      "grant_type": "client_credentials",
      "client_id": "cl_8zwrKnmcOLvINJ1bSmz7_4M8Bcu",
      "client_secret": "cs_EXAMPLExxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      "scope": "accounting:read"
    },
    "response": {
      "access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6ImE3NjgxN2U1LTA2MTctNDRkNC05Y2JlLWUxMWRiMDM0YmJmOCIsInR5cCI6ImF0K2p3dCJ9.eyJvcmciOjIsInNjb3BlIjoiYWNjb3VudGluZzpyZWFkIiwiY2lkIjoxLCJpc3MiOiJsZWRnZXJsaW5lLXNldHRpbmdzIiwiYXVkIjoibGVkZ2VybGluZS1hcGkiLCJzdWIiOiJjbF84endyS25tY09MdklOSjFiU216N180TThCY3UiLCJqdGkiOiI1N2MyMDhjZS1iMDRhLTQ5YmItYTMwOC0yNDU0ODVmY2NlYzIiLCJpYXQiOjE3OTYyODA3NzksImV4cCI6MTc5NjI4MTY3OX0.EXAMPLE-SIGNATURE",
      "token_type": "Bearer",
      "expires_in": 900,
      "scope": "accounting:read"
    }
  },
  "listAuditEvents": {
    "response": {
      "total": 4,
      "from": 0,
      "take": 2,
      "entities": [
        {
          "id": "sales:32",
          "service": "sales",
          "recorded_at": "2026-12-03T06:53:07.314Z",
          "credential": {
            "type": "api_key",
            "id": "key:2"
          },
          "request_id": "5cbb9930-4a91-412a-91da-fc024d4b17bf",
          "operation": "resumeRecurringInvoice",
          "method": "POST",
          "path": "/v1/sales/recurring-invoices/1/resume",
          "resource": {
            "type": "/sales/recurring-invoices",
            "id": "1"
          },
          "status": 200,
          "changed_fields": [
            "status",
            "updated_at"
          ],
          "before": {
            "id": 1,
            "name": "Hosting Acme (new rate)",
            "status": "paused",
            "schedule": {
              "interval": 1,
              "frequency": "monthly",
              "start_date": "2026-10-01",
              "day_of_month": 1
            },
            "template": {
              "items": [
                {
                  "qty": 1,
                  "rate": 2600,
                  "taxes": [
                    {
                      "tax_code": "S",
                      "tax_name": "VAT 21 %",
                      "tax_rate": 21
                    }
                  ],
                  "title": "Managed hosting {{ period_start }}–{{ period_end }}"
                }
              ],
              "currency": "CZK",
              "customer": {
                "id": 2001,
                "email": "***",
                "reg_no": "12345678",
                "vat_no": "CZ12345678",
                "address": {
                  "city": "Praha",
                  "country": "CZ",
                  "address1": "Dlouhá 12",
                  "postal_code": "110 00"
                },
                "peppol_id": "9929:CZ12345678",
                "business_name": "Acme s.r.o."
              },
              "due_in_days": 14
            },
            "created_at": "2026-12-03T06:53:07.175Z",
            "send_email": "***",
            "updated_at": "2026-12-03T06:53:07.305Z",
            "issued_count": 3,
            "paused_reason": null,
            "upcoming_dates": [
              "2027-01-01",
              "2027-02-01",
              "2027-03-01",
              "2027-04-01",
              "2027-05-01"
            ],
            "next_issue_date": "2027-01-01",
            "last_issued_date": "2026-12-01"
          },
          "after": {
            "id": 1,
            "name": "Hosting Acme (new rate)",
            "status": "active",
            "schedule": {
              "interval": 1,
              "frequency": "monthly",
              "start_date": "2026-10-01",
              "day_of_month": 1
            },
            "template": {
              "items": [
                {
                  "qty": 1,
                  "rate": 2600,
                  "taxes": [
                    {
                      "tax_code": "S",
                      "tax_name": "VAT 21 %",
                      "tax_rate": 21
                    }
                  ],
                  "title": "Managed hosting {{ period_start }}–{{ period_end }}"
                }
              ],
              "currency": "CZK",
              "customer": {
                "id": 2001,
                "email": "***",
                "reg_no": "12345678",
                "vat_no": "CZ12345678",
                "address": {
                  "city": "Praha",
                  "country": "CZ",
                  "address1": "Dlouhá 12",
                  "postal_code": "110 00"
                },
                "peppol_id": "9929:CZ12345678",
                "business_name": "Acme s.r.o."
              },
              "due_in_days": 14
            },
            "created_at": "2026-12-03T06:53:07.175Z",
            "send_email": "***",
            "updated_at": "2026-12-03T06:53:07.314Z",
            "issued_count": 3,
            "paused_reason": null,
            "upcoming_dates": [
              "2027-01-01",
              "2027-02-01",
              "2027-03-01",
              "2027-04-01",
              "2027-05-01"
            ],
            "next_issue_date": "2027-01-01",
            "last_issued_date": "2026-12-01"
          },
          "seq": 32,
          "hash": "64b4d154f9775eeaa5a447615722f1cbc8d924c0ea735a89312a3224aad713f6"
        },
        {
          "id": "sales:31",
          "service": "sales",
          "recorded_at": "2026-12-03T06:53:07.304Z",
          "credential": {
            "type": "api_key",
            "id": "key:2"
          },
          "request_id": "6c8cde70-e637-4ba2-af15-b4acb010574e",
          "operation": "pauseRecurringInvoice",
          "method": "POST",
          "path": "/v1/sales/recurring-invoices/1/pause",
          "resource": {
            "type": "/sales/recurring-invoices",
            "id": "1"
          },
          "status": 200,
          "changed_fields": [
            "status",
            "updated_at"
          ],
          "before": {
            "id": 1,
            "name": "Hosting Acme (new rate)",
            "status": "active",
            "schedule": {
              "interval": 1,
              "frequency": "monthly",
              "start_date": "2026-10-01",
              "day_of_month": 1
            },
            "template": {
              "items": [
                {
                  "qty": 1,
                  "rate": 2600,
                  "taxes": [
                    {
                      "tax_code": "S",
                      "tax_name": "VAT 21 %",
                      "tax_rate": 21
                    }
                  ],
                  "title": "Managed hosting {{ period_start }}–{{ period_end }}"
                }
              ],
              "currency": "CZK",
              "customer": {
                "id": 2001,
                "email": "***",
                "reg_no": "12345678",
                "vat_no": "CZ12345678",
                "address": {
                  "city": "Praha",
                  "country": "CZ",
                  "address1": "Dlouhá 12",
                  "postal_code": "110 00"
                },
                "peppol_id": "9929:CZ12345678",
                "business_name": "Acme s.r.o."
              },
              "due_in_days": 14
            },
            "created_at": "2026-12-03T06:53:07.175Z",
            "send_email": "***",
            "updated_at": "2026-12-03T06:53:07.287Z",
            "issued_count": 3,
            "paused_reason": null,
            "upcoming_dates": [
              "2027-01-01",
              "2027-02-01",
              "2027-03-01",
              "2027-04-01",
              "2027-05-01"
            ],
            "next_issue_date": "2027-01-01",
            "last_issued_date": "2026-12-01"
          },
          "after": {
            "id": 1,
            "name": "Hosting Acme (new rate)",
            "status": "paused",
            "schedule": {
              "interval": 1,
              "frequency": "monthly",
              "start_date": "2026-10-01",
              "day_of_month": 1
            },
            "template": {
              "items": [
                {
                  "qty": 1,
                  "rate": 2600,
                  "taxes": [
                    {
                      "tax_code": "S",
                      "tax_name": "VAT 21 %",
                      "tax_rate": 21
                    }
                  ],
                  "title": "Managed hosting {{ period_start }}–{{ period_end }}"
                }
              ],
              "currency": "CZK",
              "customer": {
                "id": 2001,
                "email": "***",
                "reg_no": "12345678",
                "vat_no": "CZ12345678",
                "address": {
                  "city": "Praha",
                  "country": "CZ",
                  "address1": "Dlouhá 12",
                  "postal_code": "110 00"
                },
                "peppol_id": "9929:CZ12345678",
                "business_name": "Acme s.r.o."
              },
              "due_in_days": 14
            },
            "created_at": "2026-12-03T06:53:07.175Z",
            "send_email": "***",
            "updated_at": "2026-12-03T06:53:07.305Z",
            "issued_count": 3,
            "paused_reason": null,
            "upcoming_dates": [
              "2027-01-01",
              "2027-02-01",
              "2027-03-01",
              "2027-04-01",
              "2027-05-01"
            ],
            "next_issue_date": "2027-01-01",
            "last_issued_date": "2026-12-01"
          },
          "seq": 31,
          "hash": "f860e3a9b07813e7e1b94511abdc39fc24f27627dfb36da47610394d90da629e"
        }
      ],
      "aggregations": []
    }
  },
  "verifyAuditEvents": {
    "response": {
      "ok": true,
      "services": [
        {
          "service": "sales",
          "records": 34,
          "chained_through": 34,
          "unchained": 0,
          "ok": true,
          "problems": []
        },
        {
          "service": "purchase",
          "records": 9,
          "chained_through": 9,
          "unchained": 0,
          "ok": true,
          "problems": []
        },
        {
          "service": "finance",
          "records": 17,
          "chained_through": 17,
          "unchained": 0,
          "ok": true,
          "problems": []
        },
        {
          "service": "accounting",
          "records": 20,
          "chained_through": 20,
          "unchained": 0,
          "ok": true,
          "problems": []
        },
        {
          "service": "settings",
          "records": 28,
          "chained_through": 28,
          "unchained": 0,
          "ok": true,
          "problems": []
        }
      ]
    }
  },
  "getOrganisation": {
    "response": {
      "id": 2,
      "name": "Novák Consulting s.r.o.",
      "reg_no": "27074358",
      "tax_no": null,
      "vat_no": "CZ27074358",
      "eori_no": null,
      "address": {
        "city": "Praha",
        "country": "CZ",
        "address1": "Václavské náměstí 1",
        "postal_code": "110 00"
      },
      "info_legal": null,
      "config": {},
      "website": null,
      "email": null,
      "phone": null,
      "fb": null,
      "insta": null,
      "country": "CZ",
      "legal_currency": "CZK",
      "is_vat_payer": true,
      "is_large_enterprise": false,
      "peppol_id": null,
      "bank_account": {
        "bic": "FIOBCZPP",
        "iban": "CZ6520100000002900123456",
        "account_number": "2900123456/2010"
      },
      "rounding_increment": null,
      "default_supply": "goods",
      "lock_date": null,
      "created_at": "2026-12-03T06:52:58.782Z",
      "updated_at": "2026-12-03T06:52:58.782Z"
    }
  },
  "updateOrganisation": {
    "request": {
      "email": "billing@novak-consulting.example",
      "website": "https://novak-consulting.example",
      "peppol_id": "9929:CZ27074358",
      "lock_date": "2026-09-30"
    },
    "response": {
      "id": 2,
      "name": "Novák Consulting s.r.o.",
      "reg_no": "27074358",
      "tax_no": null,
      "vat_no": "CZ27074358",
      "eori_no": null,
      "address": {
        "city": "Praha",
        "country": "CZ",
        "address1": "Václavské náměstí 1",
        "postal_code": "110 00"
      },
      "info_legal": null,
      "config": {},
      "website": "https://novak-consulting.example",
      "email": "billing@novak-consulting.example",
      "phone": null,
      "fb": null,
      "insta": null,
      "country": "CZ",
      "legal_currency": "CZK",
      "is_vat_payer": true,
      "is_large_enterprise": false,
      "peppol_id": "9929:CZ27074358",
      "bank_account": {
        "bic": "FIOBCZPP",
        "iban": "CZ6520100000002900123456",
        "account_number": "2900123456/2010"
      },
      "rounding_increment": null,
      "default_supply": "goods",
      "lock_date": "2026-09-30",
      "created_at": "2026-12-03T06:52:58.782Z",
      "updated_at": "2026-12-03T06:52:59.044Z"
    }
  },
  "getTaxFilingSettings": {
    "response": {
      "email": "ucetni@novak-consulting.example",
      "phone": "+420222333444",
      "period": "monthly",
      "data_box": "ab12cd3",
      "signatory": {
        "position": "jednatel",
        "last_name": "Novák",
        "first_name": "Jan"
      },
      "filer_type": "legal_person",
      "tax_office": "451",
      "prepared_by": {
        "phone": "+420601123456",
        "last_name": "Svobodová",
        "first_name": "Eva"
      },
      "natural_person": null,
      "reverse_charge_code": null,
      "tax_office_workplace": "2001",
      "updated_at": "2026-12-03T06:52:59.886Z"
    }
  },
  "putTaxFilingSettings": {
    "request": {
      "tax_office": "451",
      "tax_office_workplace": "2001",
      "filer_type": "legal_person",
      "signatory": {
        "first_name": "Jan",
        "last_name": "Novák",
        "position": "jednatel"
      },
      "prepared_by": {
        "first_name": "Eva",
        "last_name": "Svobodová",
        "phone": "+420601123456"
      },
      "phone": "+420222333444",
      "email": "ucetni@novak-consulting.example",
      "data_box": "ab12cd3",
      "period": "monthly"
    },
    "response": {
      "tax_office": "451",
      "tax_office_workplace": "2001",
      "filer_type": "legal_person",
      "natural_person": null,
      "signatory": {
        "first_name": "Jan",
        "last_name": "Novák",
        "position": "jednatel"
      },
      "prepared_by": {
        "first_name": "Eva",
        "last_name": "Svobodová",
        "phone": "+420601123456"
      },
      "phone": "+420222333444",
      "email": "ucetni@novak-consulting.example",
      "data_box": "ab12cd3",
      "period": "monthly",
      "reverse_charge_code": null,
      "updated_at": "2026-12-03T06:52:59.886Z"
    }
  },
  "createOrganisation": {
    "request": {
      "name": "Novák Consulting s.r.o.",
      "country": "CZ",
      "legal_currency": "CZK",
      "is_vat_payer": true,
      "reg_no": "27074358",
      "vat_no": "CZ27074358",
      "address": {
        "address1": "Václavské náměstí 1",
        "city": "Praha",
        "postal_code": "110 00",
        "country": "CZ"
      },
      "bank_account": {
        "account_number": "2900123456/2010",
        "iban": "CZ6520100000002900123456",
        "bic": "FIOBCZPP"
      }
    },
    "response": {
      "organisation": {
        "id": 2,
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "info_legal": null,
        "config": {},
        "website": null,
        "email": null,
        "phone": null,
        "fb": null,
        "insta": null,
        "country": "CZ",
        "legal_currency": "CZK",
        "is_vat_payer": true,
        "is_large_enterprise": false,
        "peppol_id": null,
        "bank_account": {
          "account_number": "2900123456/2010",
          "iban": "CZ6520100000002900123456",
          "bic": "FIOBCZPP"
        },
        "rounding_increment": null,
        "default_supply": "goods",
        "lock_date": null,
        "created_at": "2026-12-03T06:52:58.782Z",
        "updated_at": "2026-12-03T06:52:58.782Z"
      },
      "admin_key": {
        "id": 2,
        "name": "Admin key",
        "prefix": "ak_sIIXe2vN",
        "scopes": [
          "admin"
        ],
        "status": "active",
        "created_at": "2026-12-03T06:52:58.785Z",
        "expires_at": null,
        "last_used_at": null,
        "revoked_at": null,
        "key": "ak_EXAMPLExxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      }
    }
  },
  "listWebhooks": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "url": "https://hooks.acme-erp.example/ledgerline",
          "events": [
            "sales.invoice.*",
            "finance.payment.matched"
          ],
          "description": "ERP sync",
          "status": "enabled",
          "disabled_reason": null,
          "owner": "key:2",
          "withheld_reason": null,
          "created_at": "2026-12-03T06:52:59.726Z",
          "updated_at": "2026-12-03T06:52:59.730Z"
        }
      ],
      "aggregations": []
    }
  },
  "createWebhook": {
    "request": {
      "url": "https://hooks.acme-erp.example/ledgerline",
      "events": [
        "sales.invoice.*",
        "finance.payment.matched"
      ],
      "description": "ERP sync"
    },
    "response": {
      "id": 1,
      "url": "https://hooks.acme-erp.example/ledgerline",
      "events": [
        "sales.invoice.*",
        "finance.payment.matched"
      ],
      "description": "ERP sync",
      "status": "enabled",
      "disabled_reason": null,
      "owner": "key:2",
      "withheld_reason": null,
      "created_at": "2026-12-03T06:52:59.726Z",
      "updated_at": "2026-12-03T06:52:59.730Z",
      "secret": "whsec_EXAMPLExxxxxxxxxxxxxxxxxxxxxxxxx"
    }
  },
  "getWebhook": {
    "response": {
      "id": 1,
      "url": "https://hooks.acme-erp.example/ledgerline",
      "events": [
        "sales.invoice.*",
        "finance.payment.matched"
      ],
      "description": "ERP sync",
      "status": "enabled",
      "disabled_reason": null,
      "owner": "key:2",
      "withheld_reason": null,
      "created_at": "2026-12-03T06:52:59.726Z",
      "updated_at": "2026-12-03T06:52:59.730Z"
    }
  },
  "updateWebhook": {
    "request": {
      "events": [
        "sales.invoice.*",
        "sales.credit_note.*",
        "finance.payment.matched"
      ]
    },
    "response": {
      "id": 1,
      "url": "https://hooks.acme-erp.example/ledgerline",
      "events": [
        "sales.invoice.*",
        "sales.credit_note.*",
        "finance.payment.matched"
      ],
      "description": "ERP sync",
      "status": "enabled",
      "disabled_reason": null,
      "owner": "key:2",
      "withheld_reason": null,
      "created_at": "2026-12-03T06:52:59.726Z",
      "updated_at": "2026-12-03T06:52:59.784Z"
    }
  },
  "deleteWebhook": {
    "response": {
      "id": 1,
      "deleted": true
    }
  },
  "rotateWebhookSecret": {
    "response": {
      "id": 1,
      "url": "https://hooks.acme-erp.example/ledgerline",
      "events": [
        "sales.invoice.*",
        "sales.credit_note.*",
        "finance.payment.matched"
      ],
      "description": "ERP sync",
      "status": "enabled",
      "disabled_reason": null,
      "owner": "key:2",
      "withheld_reason": null,
      "created_at": "2026-12-03T06:52:59.726Z",
      "updated_at": "2026-12-03T06:53:07.377Z",
      "secret": "whsec_EXAMPLExxxxxxxxxxxxxxxxxxxxxxxxx"
    }
  },
  "listWebhookDeliveries": {
    "response": {
      "total": 19,
      "from": 0,
      "take": 2,
      "entities": [
        {
          "id": 19,
          "webhook_id": 1,
          "event_id": "fa5b83f2-dd00-4340-8f42-fcecfeadb993",
          "event_type": "com.ledgerline.sales.invoice.posted.v1",
          "status": "pending",
          "attempts": 1,
          "last_status_code": null,
          "last_duration_ms": 4,
          "last_error": "getaddrinfo ENOTFOUND hooks.acme-erp.example",
          "last_response": null,
          "next_attempt_at": "2026-12-03T07:53:07.303Z",
          "created_at": "2026-12-03T06:53:07.244Z",
          "completed_at": null
        },
        {
          "id": 18,
          "webhook_id": 1,
          "event_id": "57894c3b-b1b3-4f9c-aca3-14d861f4b5b5",
          "event_type": "com.ledgerline.sales.invoice.posted.v1",
          "status": "pending",
          "attempts": 1,
          "last_status_code": null,
          "last_duration_ms": 2,
          "last_error": "getaddrinfo ENOTFOUND hooks.acme-erp.example",
          "last_response": null,
          "next_attempt_at": "2026-12-03T07:53:07.291Z",
          "created_at": "2026-12-03T06:53:07.244Z",
          "completed_at": null
        }
      ],
      "aggregations": []
    }
  },
  "retryWebhookDelivery": {
    "response": {
      "id": 19,
      "webhook_id": 1,
      "event_id": "fa5b83f2-dd00-4340-8f42-fcecfeadb993",
      "event_type": "com.ledgerline.sales.invoice.posted.v1",
      "status": "pending",
      "attempts": 1,
      "last_status_code": null,
      "last_duration_ms": 4,
      "last_error": "getaddrinfo ENOTFOUND hooks.acme-erp.example",
      "last_response": null,
      "next_attempt_at": "2026-12-03T06:53:07.361Z",
      "created_at": "2026-12-03T06:53:07.244Z",
      "completed_at": null
    }
  },
  "listExchangeRates": {
    "response": {
      "date": "2022-09-24",
      "base_currency": "CZK",
      "entities": [
        {
          "currency": "EUR",
          "amount": 1,
          "rate": 24.635,
          "rate_date": "2022-09-21",
          "source": "cnb",
          "base_currency": "CZK"
        }
      ]
    }
  },
  "importExchangeRates": {
    "requestText": {
      "mediaType": "text/plain",
      "text": "21.09.2022 #184\nzemě|měna|množství|kód|kurz\nAustrálie|dolar|1|AUD|16,588\nBrazílie|real|1|BRL|4,838\nBulharsko|lev|1|BGN|12,596\nČína|žen-min-pi|1|CNY|3,529\nDánsko|koruna|1|DKK|3,313\nEMU|euro|1|EUR|24,635\nFilipíny|peso|100|PHP|43,006\nHongkong|dolar|1|HKD|3,168\nChorvatsko|kuna|1|HRK|3,275\nIndie|rupie|100|INR|31,121\nIndonesie|rupie|1000|IDR|1,658\nIsland|koruna|100|ISK|17,559\nIzrael|nový šekel|1|ILS|7,180\nJaponsko|jen|100|JPY|17,273\nJižní Afrika|rand|1|ZAR|1,408\nKanada|dolar|1|CAD|18,576\nKorejská republika|won|100|KRW|1,783\nMaďarsko|forint|100|HUF|6,082\nMalajsie|ringgit|1|MYR|5,463\nMexiko|peso|1|MXN|1,245\nMMF|ZPČ|1|XDR|32,207\nNorsko|koruna|1|NOK|2,395\nNový Zéland|dolar|1|NZD|14,626\nPolsko|zlotý|1|PLN|5,186\nRumunsko|leu|1|RON|4,982\nSingapur|dolar|1|SGD|17,590\nŠvédsko|koruna|1|SEK|2,256\nŠvýcarsko|frank|1|CHF|25,800\nThajsko|baht|100|THB|66,977\nTurecko|lira|1|TRY|1,357\nUSA|dolar|1|USD|24,870\nVelká Británie|libra|1|GBP|28,210\n"
    },
    "response": {
      "source": "cnb",
      "base_currency": "CZK",
      "days": 1,
      "rates": 32,
      "date_from": "2022-09-21",
      "date_to": "2022-09-21"
    }
  },
  "putExchangeRate": {
    "request": {
      "rate": 24.54
    },
    "response": {
      "currency": "EUR",
      "amount": 1,
      "rate": 24.54,
      "rate_date": "2022-09-26",
      "source": "manual",
      "base_currency": "CZK"
    }
  },
  "getRepoRates": {
    "response": {
      "known_through": "2026-12-03",
      "changes": [
        {
          "valid_from": "2012-11-02",
          "rate": 0.05,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2017-08-04",
          "rate": 0.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2017-11-03",
          "rate": 0.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-02-02",
          "rate": 0.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-06-28",
          "rate": 1,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-08-03",
          "rate": 1.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-09-27",
          "rate": 1.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-11-02",
          "rate": 1.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2019-05-03",
          "rate": 2,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2020-02-07",
          "rate": 2.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2020-03-17",
          "rate": 1.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2020-03-27",
          "rate": 1,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2020-05-08",
          "rate": 0.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-06-24",
          "rate": 0.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-08-06",
          "rate": 0.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-09-30",
          "rate": 1.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-11-04",
          "rate": 2.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-12-23",
          "rate": 3.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2022-02-04",
          "rate": 4.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2022-03-31",
          "rate": 5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2022-05-06",
          "rate": 5.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2022-06-23",
          "rate": 7,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2023-12-22",
          "rate": 6.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-02-09",
          "rate": 6.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-03-21",
          "rate": 5.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-05-03",
          "rate": 5.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-06-28",
          "rate": 4.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-08-02",
          "rate": 4.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-09-26",
          "rate": 4.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-11-08",
          "rate": 4,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2025-02-07",
          "rate": 3.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2025-05-09",
          "rate": 3.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2026-05-07",
          "rate": 3.25,
          "source": "manual",
          "note": null
        }
      ]
    }
  },
  "importRepoRates": {
    "requestText": {
      "mediaType": "text/plain",
      "text": "﻿PLATNA_OD|CNB_REPO_SAZBA_V_%\r\n20121102|0,05\r\n20170804|0,25\r\n20171103|0,50\r\n20180202|0,75\r\n20180628|1,00\r\n20180803|1,25\r\n20180927|1,50\r\n20181102|1,75\r\n20190503|2,00\r\n20200207|2,25\r\n20200317|1,75\r\n20200327|1,00\r\n20200508|0,25\r\n20210624|0,50\r\n20210806|0,75\r\n20210930|1,50\r\n20211104|2,75\r\n20211223|3,75\r\n20220204|4,50\r\n20220331|5,00\r\n20220506|5,75\r\n20220623|7,00\r\n20231222|6,75\r\n20240209|6,25\r\n20240321|5,75\r\n20240503|5,25\r\n20240628|4,75\r\n20240802|4,50\r\n20240926|4,25\r\n20241108|4,00\r\n20250207|3,75\r\n20250509|3,50\r\n20260507|3,25\r\n"
    },
    "response": {
      "changes": 33,
      "stored": 33,
      "known_through": "2026-11-30"
    }
  },
  "putRepoRate": {
    "request": {
      "rate": 3.25
    },
    "response": {
      "known_through": "2026-12-03",
      "changes": [
        {
          "valid_from": "2012-11-02",
          "rate": 0.05,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2017-08-04",
          "rate": 0.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2017-11-03",
          "rate": 0.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-02-02",
          "rate": 0.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-06-28",
          "rate": 1,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-08-03",
          "rate": 1.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-09-27",
          "rate": 1.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2018-11-02",
          "rate": 1.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2019-05-03",
          "rate": 2,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2020-02-07",
          "rate": 2.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2020-03-17",
          "rate": 1.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2020-03-27",
          "rate": 1,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2020-05-08",
          "rate": 0.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-06-24",
          "rate": 0.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-08-06",
          "rate": 0.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-09-30",
          "rate": 1.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-11-04",
          "rate": 2.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2021-12-23",
          "rate": 3.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2022-02-04",
          "rate": 4.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2022-03-31",
          "rate": 5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2022-05-06",
          "rate": 5.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2022-06-23",
          "rate": 7,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2023-12-22",
          "rate": 6.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-02-09",
          "rate": 6.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-03-21",
          "rate": 5.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-05-03",
          "rate": 5.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-06-28",
          "rate": 4.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-08-02",
          "rate": 4.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-09-26",
          "rate": 4.25,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2024-11-08",
          "rate": 4,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2025-02-07",
          "rate": 3.75,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2025-05-09",
          "rate": 3.5,
          "source": "cnb_file",
          "note": null
        },
        {
          "valid_from": "2026-05-07",
          "rate": 3.25,
          "source": "manual",
          "note": null
        }
      ]
    }
  },
  "listContacts": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 20,
      "next_cursor": null,
      "entities": [
        {
          "id": 1,
          "business_name": "AUTOMOTOLAND CZ s.r.o.",
          "display_name": null,
          "reg_no": "26835746",
          "vat_no": "CZ26835746",
          "tax_no": null,
          "address": {
            "city": "Hlučín",
            "country": "CZ",
            "address1": "Ostravská 1941/38a",
            "address2": null,
            "postal_code": "748 01"
          },
          "email": "ucetni@automotoland.example",
          "phone": null,
          "peppol_id": null,
          "preferred_locale": null,
          "bank_accounts": [
            {
              "bic": null,
              "iban": "CZ7555000000000000351361",
              "account_number": "351361/5500"
            }
          ],
          "payment_terms_days": 30,
          "currency": "CZK",
          "notes": null,
          "archived": false,
          "used": false,
          "created_at": "2026-12-03T06:52:59.359Z",
          "updated_at": "2026-12-03T06:52:59.479Z"
        }
      ],
      "aggregations": []
    }
  },
  "createContact": {
    "request": {
      "business_name": "AUTOMOTOLAND CZ s.r.o.",
      "reg_no": "26835746",
      "vat_no": "CZ26835746",
      "address": {
        "address1": "Ostravská 1941/38a",
        "address2": null,
        "postal_code": "748 01",
        "city": "Hlučín",
        "country": "CZ"
      },
      "email": "fakturace@automotoland.example",
      "bank_accounts": [
        {
          "account_number": "351361/5500"
        }
      ],
      "payment_terms_days": 14,
      "currency": "CZK",
      "preferred_locale": "cs-CZ"
    },
    "response": {
      "id": 1,
      "business_name": "AUTOMOTOLAND CZ s.r.o.",
      "display_name": null,
      "reg_no": "26835746",
      "vat_no": "CZ26835746",
      "tax_no": null,
      "address": {
        "address1": "Ostravská 1941/38a",
        "address2": null,
        "postal_code": "748 01",
        "city": "Hlučín",
        "country": "CZ"
      },
      "email": "fakturace@automotoland.example",
      "phone": null,
      "peppol_id": null,
      "preferred_locale": "cs-CZ",
      "bank_accounts": [
        {
          "account_number": "351361/5500",
          "iban": "CZ7555000000000000351361",
          "bic": null
        }
      ],
      "payment_terms_days": 14,
      "currency": "CZK",
      "notes": null,
      "archived": false,
      "used": false,
      "created_at": "2026-12-03T06:52:59.359Z",
      "updated_at": "2026-12-03T06:52:59.359Z"
    }
  },
  "lookupContact": {
    "response": {
      "reg_no": "26835746",
      "business_name": "AUTOMOTOLAND CZ s.r.o.",
      "vat_no": "CZ26835746",
      "address": {
        "address1": "Ostravská 1941/38a",
        "address2": null,
        "postal_code": "748 01",
        "city": "Hlučín",
        "country": "CZ"
      },
      "legal_form": "112",
      "date_established": "2004-05-31",
      "date_dissolved": null,
      "source": {
        "register": "ares",
        "read_at": "2026-12-03T06:52:59.352Z",
        "age_seconds": 0,
        "cached": false
      }
    }
  },
  "checkVatNumber": {
    "response": {
      "vat_no": "SK2020411811",
      "valid": true,
      "name": "Slovenská sporiteľňa, a.s.",
      "address": "Tomášikova 48, 832 37 Bratislava",
      "request_date": "2026-12-02",
      "consultation_number": "WAPIAAAAY5xH0Zb2",
      "source": {
        "register": "vies",
        "read_at": "2026-12-03T06:52:59.463Z",
        "age_seconds": 0,
        "cached": false
      }
    }
  },
  "getVatPayerStatus": {
    "response": {
      "vat_no": "CZ26835746",
      "registered": true,
      "unreliable": false,
      "unreliable_since": null,
      "tax_office": "463",
      "name": "AUTOMOTOLAND CZ",
      "published_accounts": [
        {
          "account_number": "351361/5500",
          "iban": "CZ7555000000000000351361",
          "published_on": "2020-04-04"
        }
      ],
      "source": {
        "register": "vat_payers",
        "read_at": "2026-12-03T06:52:59.457Z",
        "age_seconds": 0,
        "cached": false
      }
    }
  },
  "getContact": {
    "response": {
      "id": 1,
      "business_name": "AUTOMOTOLAND CZ s.r.o.",
      "display_name": null,
      "reg_no": "26835746",
      "vat_no": "CZ26835746",
      "tax_no": null,
      "address": {
        "city": "Hlučín",
        "country": "CZ",
        "address1": "Ostravská 1941/38a",
        "address2": null,
        "postal_code": "748 01"
      },
      "email": "fakturace@automotoland.example",
      "phone": null,
      "peppol_id": null,
      "preferred_locale": "cs-CZ",
      "bank_accounts": [
        {
          "bic": null,
          "iban": "CZ7555000000000000351361",
          "account_number": "351361/5500"
        }
      ],
      "payment_terms_days": 14,
      "currency": "CZK",
      "notes": null,
      "archived": false,
      "used": false,
      "created_at": "2026-12-03T06:52:59.359Z",
      "updated_at": "2026-12-03T06:52:59.359Z"
    }
  },
  "replaceContact": {
    "request": {
      "reg_no": "26835746",
      "business_name": "AUTOMOTOLAND CZ s.r.o.",
      "vat_no": "CZ26835746",
      "address": {
        "address1": "Ostravská 1941/38a",
        "address2": null,
        "postal_code": "748 01",
        "city": "Hlučín",
        "country": "CZ"
      },
      "email": "ucetni@automotoland.example",
      "bank_accounts": [
        {
          "account_number": "351361/5500"
        }
      ],
      "payment_terms_days": 30,
      "currency": "CZK"
    },
    "response": {
      "id": 1,
      "business_name": "AUTOMOTOLAND CZ s.r.o.",
      "display_name": null,
      "reg_no": "26835746",
      "vat_no": "CZ26835746",
      "tax_no": null,
      "address": {
        "address1": "Ostravská 1941/38a",
        "address2": null,
        "postal_code": "748 01",
        "city": "Hlučín",
        "country": "CZ"
      },
      "email": "ucetni@automotoland.example",
      "phone": null,
      "peppol_id": null,
      "preferred_locale": null,
      "bank_accounts": [
        {
          "account_number": "351361/5500",
          "iban": "CZ7555000000000000351361",
          "bic": null
        }
      ],
      "payment_terms_days": 30,
      "currency": "CZK",
      "notes": null,
      "archived": false,
      "used": false,
      "created_at": "2026-12-03T06:52:59.359Z",
      "updated_at": "2026-12-03T06:52:59.479Z"
    }
  },
  "deleteContact": {
    "response": {
      "id": 2,
      "deleted": true,
      "archived": false
    }
  },
  "listEmails": {
    "response": [
      {
        "id": 1,
        "from": "billing@novak-consulting.example",
        "reply_to": null,
        "to": "accounts@acme.example",
        "to_cc": null,
        "to_bcc": null,
        "subject": "Invoice FV202600001",
        "body": "Dear customer, please find the invoice attached.",
        "include_attachment": true,
        "attachments": [
          {
            "id": 1,
            "file_name": "Invoice-FV202600001.pdf",
            "binary_content": null
          }
        ],
        "status": "written",
        "error": null,
        "document_type": "sales_invoice",
        "document_id": 1,
        "created_at": "2026-12-03T06:53:02.764Z"
      }
    ]
  },
  "emailInvoice": {
    "request": {
      "to": "accounts@acme.example",
      "subject": "Invoice FV202600001",
      "body": "Dear customer, please find the invoice attached.",
      "include_attachment": true
    },
    "response": {
      "id": 1,
      "success": true,
      "to": "accounts@acme.example",
      "subject": "Invoice FV202600001",
      "no": "FV202600001"
    }
  },
  "createCreditNote": {
    "request": {
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "peppol_id": "9929:CZ12345678",
        "email": "accounts@acme.example",
        "address": {
          "address1": "Dlouhá 12",
          "city": "Praha",
          "postal_code": "110 00",
          "country": "CZ"
        }
      },
      "currency": "CZK",
      "culture": "cs-CZ",
      "date_issued": "2026-11-10",
      "credited_doc_id": 1,
      "notes": "Two consulting hours were not delivered.",
      "items": [
        {
          "title": "Consulting hour",
          "qty": 2,
          "rate": 1500,
          "unit": {
            "code": "HUR",
            "name": "hour"
          },
          "taxes": [
            {
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "tax_rate": 21
            }
          ]
        }
      ]
    },
    "response": {
      "id": 2,
      "uid": "089cb94a-a92f-44b7-ac9f-89e0db17b861",
      "created_at": "2026-12-03T06:53:02.807Z",
      "edited_at": null,
      "is_locked": false,
      "total_amount": 3630,
      "subtotal_amount": 3000,
      "tax_amount": 630,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 0,
      "amount_due": 3630,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 3,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 3000,
      "tax_amount_leg": 630,
      "rounding_amount_leg": 0,
      "total_amount_leg": 3630,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-10",
      "date_taxable": "2026-11-10",
      "date_due": null,
      "delivery_condition": null,
      "no": "CN202600001",
      "notes": "Two consulting hours were not delivered.",
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": null,
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "credited_doc_id": 1,
      "credited_doc_no": "FV202600001",
      "buyer_reference": null,
      "order_reference": null,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_nexus": null,
      "type": null,
      "payment_status": "unpaid",
      "overdue_days": 0,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Consulting hour",
          "description": null,
          "qty": 2,
          "rate": 1500,
          "rate_discounted": 1500,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 3000,
          "net_amount": 3000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": {
            "code": "HUR",
            "name": "hour"
          },
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 630,
              "tax_amount_leg": 630,
              "tax_base": 3000,
              "tax_base_leg": 3000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 630,
          "tax_amount_leg": 630,
          "tax_base": 3000,
          "tax_base_leg": 3000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": []
    }
  },
  "checkCreditNoteNo": {
    "response": {
      "exists": true,
      "ids": [
        2
      ]
    }
  },
  "getCreditNoteHtml": {},
  "listCreditNotes": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 100,
      "next_cursor": null,
      "entities": [
        {
          "id": 2,
          "uid": "089cb94a-a92f-44b7-ac9f-89e0db17b861",
          "created_at": "2026-12-03T06:53:02.807Z",
          "edited_at": null,
          "is_locked": false,
          "total_amount": 3630,
          "subtotal_amount": 3000,
          "tax_amount": 630,
          "rounding_increment": null,
          "rounding_amount": 0,
          "amount_paid": 0,
          "amount_due": 3630,
          "bank_account": null,
          "billing_address": null,
          "shipping_address": null,
          "counter_id": 3,
          "currency": "CZK",
          "currency_coef": 1,
          "fx_rate": 1,
          "tax_fx_rate": 1,
          "currency_leg": "CZK",
          "subtotal_amount_leg": 3000,
          "tax_amount_leg": 630,
          "rounding_amount_leg": 0,
          "total_amount_leg": 3630,
          "customer": {
            "id": 2001,
            "business_name": "Acme s.r.o.",
            "reg_no": "12345678",
            "vat_no": "CZ12345678",
            "address": {
              "address1": "Dlouhá 12",
              "postal_code": "110 00",
              "city": "Praha",
              "country": "CZ"
            },
            "email": "accounts@acme.example",
            "peppol_id": "9929:CZ12345678"
          },
          "contact_id": null,
          "culture": "cs-CZ",
          "document_locale": null,
          "template_layout": null,
          "date_issued": "2026-11-10",
          "date_taxable": "2026-11-10",
          "date_due": null,
          "delivery_condition": null,
          "no": "CN202600001",
          "notes": "Two consulting hours were not delivered.",
          "memo": null,
          "org": {
            "name": "Novák Consulting s.r.o.",
            "reg_no": "27074358",
            "tax_no": null,
            "vat_no": "CZ27074358",
            "eori_no": null,
            "address": {
              "city": "Praha",
              "country": "CZ",
              "address1": "Václavské náměstí 1",
              "postal_code": "110 00"
            },
            "info_legal": null,
            "config": {},
            "website": "https://novak-consulting.example",
            "email": "billing@novak-consulting.example",
            "phone": null,
            "fb": null,
            "insta": null
          },
          "payment_reference": null,
          "payment_info": null,
          "payment_method": null,
          "constant_symbol": null,
          "specific_symbol": null,
          "credited_doc_id": 1,
          "credited_doc_no": "FV202600001",
          "buyer_reference": null,
          "order_reference": null,
          "fx_rate_date": null,
          "fx_rate_source": null,
          "payment_term": null,
          "precision": 2,
          "rate_format": null,
          "taxes_included": false,
          "tax_nexus": null,
          "type": null,
          "payment_status": "unpaid",
          "overdue_days": 0,
          "shop_a_object_id": null,
          "items": [
            {
              "id": 1,
              "title": "Consulting hour",
              "description": null,
              "qty": 2,
              "rate": 1500,
              "rate_discounted": 1500,
              "discount_explicit": 0,
              "discount_implicit": 0,
              "amount": 3000,
              "net_amount": 3000,
              "shop_a_line_id": null,
              "psp_object_id": null,
              "shop_b_line_id": null,
              "eshop_line_id": null,
              "sku": null,
              "item": null,
              "variant": null,
              "unit": {
                "code": "HUR",
                "name": "hour"
              },
              "gl_account": null,
              "supply": "goods",
              "taxes": [
                {
                  "id": 1,
                  "tax_rate": 21,
                  "tax_amount": 630,
                  "tax_amount_leg": 630,
                  "tax_base": 3000,
                  "tax_base_leg": 3000,
                  "currency_leg": "CZK",
                  "tax_index": null,
                  "tax_code": "S",
                  "tax_name": "VAT 21 %",
                  "rate_type": null,
                  "tax_details": null,
                  "tax_category": "S"
                }
              ]
            }
          ],
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 630,
              "tax_amount_leg": 630,
              "tax_base": 3000,
              "tax_base_leg": 3000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ],
          "shipping_charges": [],
          "discounts": [],
          "urls": []
        }
      ],
      "aggregations": []
    }
  },
  "getCreditNote": {
    "response": {
      "id": 2,
      "uid": "089cb94a-a92f-44b7-ac9f-89e0db17b861",
      "created_at": "2026-12-03T06:53:02.807Z",
      "edited_at": null,
      "is_locked": false,
      "total_amount": 3630,
      "subtotal_amount": 3000,
      "tax_amount": 630,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 0,
      "amount_due": 3630,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 3,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 3000,
      "tax_amount_leg": 630,
      "rounding_amount_leg": 0,
      "total_amount_leg": 3630,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-10",
      "date_taxable": "2026-11-10",
      "date_due": null,
      "delivery_condition": null,
      "no": "CN202600001",
      "notes": "Two consulting hours were not delivered.",
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": null,
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "credited_doc_id": 1,
      "credited_doc_no": "FV202600001",
      "buyer_reference": null,
      "order_reference": null,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_nexus": null,
      "type": null,
      "payment_status": "unpaid",
      "overdue_days": 0,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Consulting hour",
          "description": null,
          "qty": 2,
          "rate": 1500,
          "rate_discounted": 1500,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 3000,
          "net_amount": 3000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": {
            "code": "HUR",
            "name": "hour"
          },
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 630,
              "tax_amount_leg": 630,
              "tax_base": 3000,
              "tax_base_leg": 3000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 630,
          "tax_amount_leg": 630,
          "tax_base": 3000,
          "tax_base_leg": 3000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": []
    }
  },
  "getCreditNotePdf": {},
  "allocateCreditNote": {
    "request": {
      "invoice_id": 1,
      "date": "2026-11-10"
    },
    "response": {
      "id": 2,
      "credit_note": {
        "id": 2,
        "no": "CN202600001"
      },
      "invoice": {
        "id": 1,
        "no": "FV202600001"
      },
      "amount": 3630,
      "currency": "CZK",
      "date": "2026-11-10",
      "created_at": "2026-12-03T06:53:03.309Z",
      "removed_at": null,
      "exchange_difference": null
    }
  },
  "listCreditNoteAllocations": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "credit_note": {
            "id": 2,
            "no": "CN202600001"
          },
          "invoice": {
            "id": 1,
            "no": "FV202600001"
          },
          "amount": 100,
          "currency": "CZK",
          "date": "2026-12-03",
          "created_at": "2026-12-03T06:53:03.274Z",
          "removed_at": "2026-12-03T06:53:03.293Z",
          "exchange_difference": null
        },
        {
          "id": 2,
          "credit_note": {
            "id": 2,
            "no": "CN202600001"
          },
          "invoice": {
            "id": 1,
            "no": "FV202600001"
          },
          "amount": 3630,
          "currency": "CZK",
          "date": "2026-11-10",
          "created_at": "2026-12-03T06:53:03.309Z",
          "removed_at": null,
          "exchange_difference": null
        }
      ],
      "aggregations": []
    }
  },
  "removeCreditNoteAllocation": {
    "response": {
      "id": 1,
      "credit_note": {
        "id": 2,
        "no": "CN202600001"
      },
      "invoice": {
        "id": 1,
        "no": "FV202600001"
      },
      "amount": 100,
      "currency": "CZK",
      "date": "2026-12-03",
      "created_at": "2026-12-03T06:53:03.274Z",
      "removed_at": "2026-12-03T06:53:03.293Z",
      "exchange_difference": null
    }
  },
  "evaluateInvoiceCompliance": {
    "request": [
      1
    ],
    "response": [
      {
        "invoice_id": 1,
        "compliance": {
          "status": "evaluated",
          "reporting_method": "no_reporting",
          "delivery_eligibility": "eligible",
          "required_action": "none",
          "allowed_actions": {
            "send_email": true,
            "download_pdf": true,
            "send_via_peppol": true,
            "submit_to_tax_authority": false
          },
          "evaluated_at": "2026-12-03T06:53:02.355Z",
          "blocking_reason": null
        }
      }
    ]
  },
  "getInvoiceCompliance": {
    "response": {
      "invoice_id": 1,
      "compliance": {
        "status": "evaluated",
        "reporting_method": "no_reporting",
        "delivery_eligibility": "eligible",
        "required_action": "none",
        "allowed_actions": {
          "send_email": true,
          "download_pdf": true,
          "send_via_peppol": true,
          "submit_to_tax_authority": false
        },
        "evaluated_at": "2026-12-03T06:53:02.355Z",
        "blocking_reason": null
      }
    }
  },
  "getItemSalesRate": {
    "response": {
      "rate": 1815,
      "source": "item",
      "price_list_id": null
    }
  },
  "createItem": {
    "request": {
      "sku": "CONS-H",
      "name": "Consulting hour",
      "unit": {
        "code": "HUR",
        "name": "hour"
      },
      "sales_rate": 1500,
      "currency": "CZK",
      "tax_rate": 21,
      "gl_account": {
        "number": "602"
      }
    },
    "response": {
      "id": 1,
      "sku": "CONS-H",
      "name": "Consulting hour",
      "unit": {
        "code": "HUR",
        "name": "hour"
      },
      "sales_rate": 1500,
      "currency": "CZK",
      "tax_rate": 21,
      "gl_account": {
        "number": "602"
      },
      "supply": null
    }
  },
  "listItems": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "sku": "CONS-H",
          "name": "Consulting hour",
          "unit": {
            "code": "HUR",
            "name": "hour"
          },
          "sales_rate": 1500,
          "currency": "CZK",
          "tax_rate": 21,
          "gl_account": {
            "number": "602"
          },
          "supply": null
        }
      ],
      "aggregations": []
    }
  },
  "createPriceList": {
    "request": {
      "name": "Partners 2027",
      "currency": "CZK",
      "valid_from": "2027-01-01",
      "is_default": false,
      "rates": [
        {
          "item_id": 1,
          "rate": 1350,
          "min_qty": 10
        }
      ]
    },
    "response": {
      "id": 1,
      "name": "Partners 2027",
      "currency": "CZK",
      "valid_from": "2027-01-01",
      "valid_to": null,
      "is_default": false,
      "rates": [
        {
          "item_id": 1,
          "rate": 1350,
          "min_qty": 10
        }
      ]
    }
  },
  "createInvoice": {
    "request": {
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "peppol_id": "9929:CZ12345678",
        "email": "accounts@acme.example",
        "address": {
          "address1": "Dlouhá 12",
          "city": "Praha",
          "postal_code": "110 00",
          "country": "CZ"
        }
      },
      "currency": "CZK",
      "culture": "cs-CZ",
      "date_issued": "2026-11-03",
      "date_due": "2026-11-17",
      "buyer_reference": "ACME-PO-2026-118",
      "items": [
        {
          "title": "Consulting hour",
          "item": {
            "id": 1
          },
          "qty": 12,
          "rate": 1500,
          "unit": {
            "code": "HUR",
            "name": "hour"
          },
          "taxes": [
            {
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "tax_rate": 21
            }
          ]
        },
        {
          "title": "Handbook",
          "qty": 2,
          "rate": 450,
          "taxes": [
            {
              "tax_code": "R",
              "tax_name": "VAT 12 %",
              "tax_rate": 12
            }
          ]
        }
      ]
    },
    "response": {
      "id": 1,
      "uid": "dfc9ca94-92e2-4e84-9d28-afc491b6a9cf",
      "created_at": "2026-12-03T06:53:00.075Z",
      "edited_at": null,
      "is_locked": false,
      "total_amount": 22788,
      "subtotal_amount": 18900,
      "tax_amount": 3888,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 0,
      "amount_due": 22788,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 2,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 18900,
      "tax_amount_leg": 3888,
      "rounding_amount_leg": 0,
      "total_amount_leg": 22788,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-03",
      "date_taxable": "2026-11-03",
      "date_due": "2026-11-17",
      "delivery_condition": null,
      "no": "FV202600001",
      "notes": null,
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": null,
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "buyer_reference": "ACME-PO-2026-118",
      "order_reference": null,
      "recurring_invoice_id": null,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_nexus": null,
      "type": null,
      "payment_status": "unpaid",
      "overdue_days": 16,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Consulting hour",
          "description": null,
          "qty": 12,
          "rate": 1500,
          "rate_discounted": 1500,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 18000,
          "net_amount": 18000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": {
            "id": 1
          },
          "variant": null,
          "unit": {
            "code": "HUR",
            "name": "hour"
          },
          "gl_account": {
            "number": "602"
          },
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 3780,
              "tax_amount_leg": 3780,
              "tax_base": 18000,
              "tax_base_leg": 18000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        },
        {
          "id": 2,
          "title": "Handbook",
          "description": null,
          "qty": 2,
          "rate": 450,
          "rate_discounted": 450,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 900,
          "net_amount": 900,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 12,
              "tax_amount": 108,
              "tax_amount_leg": 108,
              "tax_base": 900,
              "tax_base_leg": 900,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "R",
              "tax_name": "VAT 12 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 3780,
          "tax_amount_leg": 3780,
          "tax_base": 18000,
          "tax_base_leg": 18000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        },
        {
          "id": 2,
          "tax_rate": 12,
          "tax_amount": 108,
          "tax_amount_leg": 108,
          "tax_base": 900,
          "tax_base_leg": 900,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "R",
          "tax_name": "VAT 12 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": []
    }
  },
  "listInvoices": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 10,
      "next_cursor": null,
      "entities": [
        {
          "id": 1,
          "uid": "dfc9ca94-92e2-4e84-9d28-afc491b6a9cf",
          "created_at": "2026-12-03T06:53:00.075Z",
          "edited_at": null,
          "is_locked": false,
          "total_amount": 22788,
          "subtotal_amount": 18900,
          "tax_amount": 3888,
          "rounding_increment": null,
          "rounding_amount": 0,
          "amount_paid": 0,
          "amount_due": 22788,
          "bank_account": null,
          "billing_address": null,
          "shipping_address": null,
          "counter_id": 2,
          "currency": "CZK",
          "currency_coef": 1,
          "fx_rate": 1,
          "tax_fx_rate": 1,
          "currency_leg": "CZK",
          "subtotal_amount_leg": 18900,
          "tax_amount_leg": 3888,
          "rounding_amount_leg": 0,
          "total_amount_leg": 22788,
          "customer": {
            "id": 2001,
            "business_name": "Acme s.r.o.",
            "reg_no": "12345678",
            "vat_no": "CZ12345678",
            "address": {
              "address1": "Dlouhá 12",
              "postal_code": "110 00",
              "city": "Praha",
              "country": "CZ"
            },
            "email": "accounts@acme.example",
            "peppol_id": "9929:CZ12345678"
          },
          "contact_id": null,
          "culture": "cs-CZ",
          "document_locale": null,
          "template_layout": null,
          "date_issued": "2026-11-03",
          "date_taxable": "2026-11-03",
          "date_due": "2026-11-17",
          "delivery_condition": null,
          "no": "FV202600001",
          "notes": null,
          "memo": null,
          "org": {
            "name": "Novák Consulting s.r.o.",
            "reg_no": "27074358",
            "tax_no": null,
            "vat_no": "CZ27074358",
            "eori_no": null,
            "address": {
              "city": "Praha",
              "country": "CZ",
              "address1": "Václavské náměstí 1",
              "postal_code": "110 00"
            },
            "info_legal": null,
            "config": {},
            "website": "https://novak-consulting.example",
            "email": "billing@novak-consulting.example",
            "phone": null,
            "fb": null,
            "insta": null
          },
          "payment_reference": null,
          "payment_info": null,
          "payment_method": null,
          "constant_symbol": null,
          "specific_symbol": null,
          "buyer_reference": "ACME-PO-2026-118",
          "order_reference": null,
          "recurring_invoice_id": null,
          "fx_rate_date": null,
          "fx_rate_source": null,
          "payment_term": null,
          "precision": 2,
          "rate_format": null,
          "taxes_included": false,
          "tax_nexus": null,
          "type": null,
          "payment_status": "unpaid",
          "overdue_days": 16,
          "shop_a_object_id": null,
          "items": [
            {
              "id": 1,
              "title": "Consulting hour",
              "description": null,
              "qty": 12,
              "rate": 1500,
              "rate_discounted": 1500,
              "discount_explicit": 0,
              "discount_implicit": 0,
              "amount": 18000,
              "net_amount": 18000,
              "shop_a_line_id": null,
              "psp_object_id": null,
              "shop_b_line_id": null,
              "eshop_line_id": null,
              "sku": null,
              "item": {
                "id": 1
              },
              "variant": null,
              "unit": {
                "code": "HUR",
                "name": "hour"
              },
              "gl_account": {
                "number": "602"
              },
              "supply": "goods",
              "taxes": [
                {
                  "id": 1,
                  "tax_rate": 21,
                  "tax_amount": 3780,
                  "tax_amount_leg": 3780,
                  "tax_base": 18000,
                  "tax_base_leg": 18000,
                  "currency_leg": "CZK",
                  "tax_index": null,
                  "tax_code": "S",
                  "tax_name": "VAT 21 %",
                  "rate_type": null,
                  "tax_details": null,
                  "tax_category": "S"
                }
              ]
            },
            {
              "id": 2,
              "title": "Handbook",
              "description": null,
              "qty": 2,
              "rate": 450,
              "rate_discounted": 450,
              "discount_explicit": 0,
              "discount_implicit": 0,
              "amount": 900,
              "net_amount": 900,
              "shop_a_line_id": null,
              "psp_object_id": null,
              "shop_b_line_id": null,
              "eshop_line_id": null,
              "sku": null,
              "item": null,
              "variant": null,
              "unit": null,
              "gl_account": null,
              "supply": "goods",
              "taxes": [
                {
                  "id": 1,
                  "tax_rate": 12,
                  "tax_amount": 108,
                  "tax_amount_leg": 108,
                  "tax_base": 900,
                  "tax_base_leg": 900,
                  "currency_leg": "CZK",
                  "tax_index": null,
                  "tax_code": "R",
                  "tax_name": "VAT 12 %",
                  "rate_type": null,
                  "tax_details": null,
                  "tax_category": "S"
                }
              ]
            }
          ],
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 3780,
              "tax_amount_leg": 3780,
              "tax_base": 18000,
              "tax_base_leg": 18000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            },
            {
              "id": 2,
              "tax_rate": 12,
              "tax_amount": 108,
              "tax_amount_leg": 108,
              "tax_base": 900,
              "tax_base_leg": 900,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "R",
              "tax_name": "VAT 12 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ],
          "shipping_charges": [],
          "discounts": [],
          "urls": []
        }
      ],
      "aggregations": []
    }
  },
  "getInvoice": {
    "response": {
      "id": 1,
      "uid": "dfc9ca94-92e2-4e84-9d28-afc491b6a9cf",
      "created_at": "2026-12-03T06:53:00.075Z",
      "edited_at": null,
      "is_locked": false,
      "total_amount": 22788,
      "subtotal_amount": 18900,
      "tax_amount": 3888,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 0,
      "amount_due": 22788,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 2,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 18900,
      "tax_amount_leg": 3888,
      "rounding_amount_leg": 0,
      "total_amount_leg": 22788,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-03",
      "date_taxable": "2026-11-03",
      "date_due": "2026-11-17",
      "delivery_condition": null,
      "no": "FV202600001",
      "notes": null,
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": null,
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "buyer_reference": "ACME-PO-2026-118",
      "order_reference": null,
      "recurring_invoice_id": null,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_nexus": null,
      "type": null,
      "payment_status": "unpaid",
      "overdue_days": 16,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Consulting hour",
          "description": null,
          "qty": 12,
          "rate": 1500,
          "rate_discounted": 1500,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 18000,
          "net_amount": 18000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": {
            "id": 1
          },
          "variant": null,
          "unit": {
            "code": "HUR",
            "name": "hour"
          },
          "gl_account": {
            "number": "602"
          },
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 3780,
              "tax_amount_leg": 3780,
              "tax_base": 18000,
              "tax_base_leg": 18000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        },
        {
          "id": 2,
          "title": "Handbook",
          "description": null,
          "qty": 2,
          "rate": 450,
          "rate_discounted": 450,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 900,
          "net_amount": 900,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 12,
              "tax_amount": 108,
              "tax_amount_leg": 108,
              "tax_base": 900,
              "tax_base_leg": 900,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "R",
              "tax_name": "VAT 12 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 3780,
          "tax_amount_leg": 3780,
          "tax_base": 18000,
          "tax_base_leg": 18000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        },
        {
          "id": 2,
          "tax_rate": 12,
          "tax_amount": 108,
          "tax_amount_leg": 108,
          "tax_base": 900,
          "tax_base_leg": 900,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "R",
          "tax_name": "VAT 12 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": []
    }
  },
  "getInvoiceHtml": {},
  "getInvoicePdf": {},
  "listInvoiceAllocations": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "credit_note": {
            "id": 2,
            "no": "CN202600001"
          },
          "invoice": {
            "id": 1,
            "no": "FV202600001"
          },
          "amount": 100,
          "currency": "CZK",
          "date": "2026-12-03",
          "created_at": "2026-12-03T06:53:03.274Z",
          "removed_at": "2026-12-03T06:53:03.293Z",
          "exchange_difference": null
        },
        {
          "id": 2,
          "credit_note": {
            "id": 2,
            "no": "CN202600001"
          },
          "invoice": {
            "id": 1,
            "no": "FV202600001"
          },
          "amount": 3630,
          "currency": "CZK",
          "date": "2026-11-10",
          "created_at": "2026-12-03T06:53:03.309Z",
          "removed_at": null,
          "exchange_difference": null
        }
      ],
      "aggregations": []
    }
  },
  "uploadInvoiceAttachment": {
    "response": {
      "id": 1,
      "document_id": 1,
      "file_name": "git-logo.png",
      "content_type": "image/png",
      "size": 207,
      "sha256": "ecc07dc6faa45d6368fa2867483636e6b2579f1eeac1a9fb174bd9388d982714",
      "source": "upload",
      "created_at": "2026-12-03T06:53:06.175Z"
    }
  },
  "listInvoiceAttachments": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "document_id": 1,
          "file_name": "git-logo.png",
          "content_type": "image/png",
          "size": 207,
          "sha256": "ecc07dc6faa45d6368fa2867483636e6b2579f1eeac1a9fb174bd9388d982714",
          "source": "upload",
          "created_at": "2026-12-03T06:53:06.175Z"
        }
      ],
      "aggregations": []
    }
  },
  "getInvoiceAttachment": {},
  "deleteInvoiceAttachment": {
    "response": {
      "id": 1,
      "document_id": 1,
      "file_name": "git-logo.png",
      "content_type": "image/png",
      "size": 207,
      "sha256": "ecc07dc6faa45d6368fa2867483636e6b2579f1eeac1a9fb174bd9388d982714",
      "source": "upload",
      "created_at": "2026-12-03T06:53:06.175Z"
    }
  },
  "createHostingOrder": {
    "request": {
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "peppol_id": "9929:CZ12345678",
        "email": "accounts@acme.example",
        "address": {
          "address1": "Dlouhá 12",
          "city": "Praha",
          "postal_code": "110 00",
          "country": "CZ"
        }
      },
      "currency": "CZK",
      "culture": "cs-CZ",
      "date_issued": "2026-11-03",
      "date_due": "2026-11-10",
      "items": [
        {
          "title": "Webhosting Business, 12 months",
          "qty": 1,
          "rate": 2400,
          "taxes": [
            {
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "tax_rate": 21
            }
          ]
        }
      ],
      "integration_id": "webhosting",
      "order_id": "OBJ-2026-0042"
    },
    "response": {
      "id": 1,
      "integration_id": "webhosting",
      "order_id": "OBJ-2026-0042",
      "create_invoice_after": "payment",
      "status": "awaiting_payment",
      "proforma": {
        "id": 8,
        "no": "PF26900003",
        "variable_symbol": "26900003",
        "status": "unpaid",
        "total_amount": 2904,
        "amount_due": 2904
      },
      "invoice": null,
      "created_at": "2026-12-03T06:53:05.011Z"
    }
  },
  "getHostingOrder": {
    "response": {
      "id": 1,
      "integration_id": "webhosting",
      "order_id": "OBJ-2026-0042",
      "create_invoice_after": "payment",
      "status": "awaiting_payment",
      "proforma": {
        "id": 8,
        "no": "PF26900003",
        "variable_symbol": "26900003",
        "status": "unpaid",
        "total_amount": 2904,
        "amount_due": 2904
      },
      "invoice": null,
      "created_at": "2026-12-03T06:53:05.011Z"
    }
  },
  "createProformaInvoice": {
    "request": {
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "peppol_id": "9929:CZ12345678",
        "email": "accounts@acme.example",
        "address": {
          "address1": "Dlouhá 12",
          "city": "Praha",
          "postal_code": "110 00",
          "country": "CZ"
        }
      },
      "currency": "CZK",
      "culture": "cs-CZ",
      "date_issued": "2026-11-03",
      "date_due": "2026-11-10",
      "items": [
        {
          "title": "Implementation project – advance",
          "qty": 1,
          "rate": 50000,
          "taxes": [
            {
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "tax_rate": 21
            }
          ]
        }
      ]
    },
    "response": {
      "id": 3,
      "uid": "ea5be29a-5f2e-495f-9c05-b929eddbca25",
      "created_at": "2026-12-03T06:53:03.356Z",
      "edited_at": null,
      "is_locked": false,
      "total_amount": 60500,
      "subtotal_amount": 50000,
      "tax_amount": 10500,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 0,
      "amount_due": 60500,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 4,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 50000,
      "tax_amount_leg": 10500,
      "rounding_amount_leg": 0,
      "total_amount_leg": 60500,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-03",
      "date_taxable": "2026-11-03",
      "date_due": "2026-11-10",
      "delivery_condition": null,
      "no": "PF26900001",
      "notes": null,
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": null,
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "buyer_reference": null,
      "order_reference": null,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_nexus": null,
      "type": null,
      "payment_status": "unpaid",
      "overdue_days": 23,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Implementation project – advance",
          "description": null,
          "qty": 1,
          "rate": 50000,
          "rate_discounted": 50000,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 50000,
          "net_amount": 50000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 10500,
              "tax_amount_leg": 10500,
              "tax_base": 50000,
              "tax_base_leg": 50000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 10500,
          "tax_amount_leg": 10500,
          "tax_base": 50000,
          "tax_base_leg": 50000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": [],
      "status": "unpaid",
      "variable_symbol": "26900001",
      "tax_documents": [],
      "settled_by": null,
      "cancelled_at": null
    }
  },
  "listProformaInvoices": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 10,
      "next_cursor": null,
      "entities": [
        {
          "id": 3,
          "uid": "ea5be29a-5f2e-495f-9c05-b929eddbca25",
          "created_at": "2026-12-03T06:53:03.356Z",
          "edited_at": "2026-12-03T06:53:03.386Z",
          "is_locked": false,
          "total_amount": 48400,
          "subtotal_amount": 40000,
          "tax_amount": 8400,
          "rounding_increment": null,
          "rounding_amount": 0,
          "amount_paid": 48400,
          "amount_due": 0,
          "bank_account": null,
          "billing_address": null,
          "shipping_address": null,
          "counter_id": 4,
          "currency": "CZK",
          "currency_coef": 1,
          "fx_rate": 1,
          "tax_fx_rate": 1,
          "currency_leg": "CZK",
          "subtotal_amount_leg": 40000,
          "tax_amount_leg": 8400,
          "rounding_amount_leg": 0,
          "total_amount_leg": 48400,
          "customer": {
            "id": 2001,
            "business_name": "Acme s.r.o.",
            "reg_no": "12345678",
            "vat_no": "CZ12345678",
            "address": {
              "address1": "Dlouhá 12",
              "postal_code": "110 00",
              "city": "Praha",
              "country": "CZ"
            },
            "email": "accounts@acme.example",
            "peppol_id": "9929:CZ12345678"
          },
          "contact_id": null,
          "culture": "cs-CZ",
          "document_locale": null,
          "template_layout": null,
          "date_issued": "2026-11-03",
          "date_taxable": "2026-11-03",
          "date_due": "2026-11-10",
          "delivery_condition": null,
          "no": "PF26900001",
          "notes": null,
          "memo": null,
          "org": {
            "name": "Novák Consulting s.r.o.",
            "reg_no": "27074358",
            "tax_no": null,
            "vat_no": "CZ27074358",
            "eori_no": null,
            "address": {
              "city": "Praha",
              "country": "CZ",
              "address1": "Václavské náměstí 1",
              "postal_code": "110 00"
            },
            "info_legal": null,
            "config": {},
            "website": "https://novak-consulting.example",
            "email": "billing@novak-consulting.example",
            "phone": null,
            "fb": null,
            "insta": null
          },
          "payment_reference": null,
          "payment_info": null,
          "payment_method": null,
          "constant_symbol": null,
          "specific_symbol": null,
          "buyer_reference": null,
          "order_reference": null,
          "fx_rate_date": null,
          "fx_rate_source": null,
          "payment_term": null,
          "precision": 2,
          "rate_format": null,
          "taxes_included": false,
          "tax_nexus": null,
          "type": null,
          "payment_status": "paid",
          "overdue_days": 0,
          "shop_a_object_id": null,
          "items": [
            {
              "id": 1,
              "title": "Implementation project – advance",
              "description": null,
              "qty": 1,
              "rate": 40000,
              "rate_discounted": 40000,
              "discount_explicit": 0,
              "discount_implicit": 0,
              "amount": 40000,
              "net_amount": 40000,
              "shop_a_line_id": null,
              "psp_object_id": null,
              "shop_b_line_id": null,
              "eshop_line_id": null,
              "sku": null,
              "item": null,
              "variant": null,
              "unit": null,
              "gl_account": null,
              "supply": "goods",
              "taxes": [
                {
                  "id": 1,
                  "tax_rate": 21,
                  "tax_amount": 8400,
                  "tax_amount_leg": 8400,
                  "tax_base": 40000,
                  "tax_base_leg": 40000,
                  "currency_leg": "CZK",
                  "tax_index": null,
                  "tax_code": "S",
                  "tax_name": "VAT 21 %",
                  "rate_type": null,
                  "tax_details": null,
                  "tax_category": "S"
                }
              ]
            }
          ],
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 8400,
              "tax_amount_leg": 8400,
              "tax_base": 40000,
              "tax_base_leg": 40000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ],
          "shipping_charges": [],
          "discounts": [],
          "urls": [],
          "status": "paid",
          "variable_symbol": "26900001",
          "tax_documents": [
            {
              "id": 6,
              "no": "DZ202600001",
              "date_issued": "2026-11-06",
              "total_amount": 48400,
              "tax_amount": 8400
            }
          ],
          "settled_by": null,
          "cancelled_at": null
        }
      ],
      "aggregations": []
    }
  },
  "getProformaInvoice": {
    "response": {
      "id": 3,
      "uid": "ea5be29a-5f2e-495f-9c05-b929eddbca25",
      "created_at": "2026-12-03T06:53:03.356Z",
      "edited_at": "2026-12-03T06:53:03.386Z",
      "is_locked": false,
      "total_amount": 48400,
      "subtotal_amount": 40000,
      "tax_amount": 8400,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 48400,
      "amount_due": 0,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 4,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 40000,
      "tax_amount_leg": 8400,
      "rounding_amount_leg": 0,
      "total_amount_leg": 48400,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-03",
      "date_taxable": "2026-11-03",
      "date_due": "2026-11-10",
      "delivery_condition": null,
      "no": "PF26900001",
      "notes": null,
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": null,
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "buyer_reference": null,
      "order_reference": null,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_nexus": null,
      "type": null,
      "payment_status": "paid",
      "overdue_days": 0,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Implementation project – advance",
          "description": null,
          "qty": 1,
          "rate": 40000,
          "rate_discounted": 40000,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 40000,
          "net_amount": 40000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 8400,
              "tax_amount_leg": 8400,
              "tax_base": 40000,
              "tax_base_leg": 40000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 8400,
          "tax_amount_leg": 8400,
          "tax_base": 40000,
          "tax_base_leg": 40000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": [],
      "status": "paid",
      "variable_symbol": "26900001",
      "tax_documents": [
        {
          "id": 6,
          "no": "DZ202600001",
          "date_issued": "2026-11-06",
          "total_amount": 48400,
          "tax_amount": 8400
        }
      ],
      "settled_by": null,
      "cancelled_at": null
    }
  },
  "updateProformaInvoice": {
    "request": {
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "peppol_id": "9929:CZ12345678",
        "email": "accounts@acme.example",
        "address": {
          "address1": "Dlouhá 12",
          "city": "Praha",
          "postal_code": "110 00",
          "country": "CZ"
        }
      },
      "currency": "CZK",
      "culture": "cs-CZ",
      "date_issued": "2026-11-03",
      "date_due": "2026-11-10",
      "items": [
        {
          "title": "Implementation project – advance",
          "qty": 1,
          "rate": 40000,
          "taxes": [
            {
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "tax_rate": 21
            }
          ]
        }
      ]
    },
    "response": {
      "id": 3,
      "uid": "ea5be29a-5f2e-495f-9c05-b929eddbca25",
      "created_at": "2026-12-03T06:53:03.356Z",
      "edited_at": "2026-12-03T06:53:03.386Z",
      "is_locked": false,
      "total_amount": 48400,
      "subtotal_amount": 40000,
      "tax_amount": 8400,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 0,
      "amount_due": 48400,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 4,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 40000,
      "tax_amount_leg": 8400,
      "rounding_amount_leg": 0,
      "total_amount_leg": 48400,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-03",
      "date_taxable": "2026-11-03",
      "date_due": "2026-11-10",
      "delivery_condition": null,
      "no": "PF26900001",
      "notes": null,
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": null,
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "buyer_reference": null,
      "order_reference": null,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_nexus": null,
      "type": null,
      "payment_status": "unpaid",
      "overdue_days": 23,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Implementation project – advance",
          "description": null,
          "qty": 1,
          "rate": 40000,
          "rate_discounted": 40000,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 40000,
          "net_amount": 40000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 8400,
              "tax_amount_leg": 8400,
              "tax_base": 40000,
              "tax_base_leg": 40000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 8400,
          "tax_amount_leg": 8400,
          "tax_base": 40000,
          "tax_base_leg": 40000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": [],
      "status": "unpaid",
      "variable_symbol": "26900001",
      "tax_documents": [],
      "settled_by": null,
      "cancelled_at": null
    }
  },
  "cancelProformaInvoice": {
    "response": {
      "id": 5,
      "uid": "80997ee5-2457-480e-ac0f-e482d7b432ef",
      "created_at": "2026-12-03T06:53:04.321Z",
      "edited_at": null,
      "is_locked": false,
      "total_amount": 60500,
      "subtotal_amount": 50000,
      "tax_amount": 10500,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 0,
      "amount_due": 0,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 4,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 50000,
      "tax_amount_leg": 10500,
      "rounding_amount_leg": 0,
      "total_amount_leg": 60500,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-03",
      "date_taxable": "2026-11-03",
      "date_due": "2026-11-10",
      "delivery_condition": null,
      "no": "PF26900002",
      "notes": null,
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": null,
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "buyer_reference": null,
      "order_reference": null,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_nexus": null,
      "type": null,
      "payment_status": "unpaid",
      "overdue_days": 0,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Implementation project – advance",
          "description": null,
          "qty": 1,
          "rate": 50000,
          "rate_discounted": 50000,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 50000,
          "net_amount": 50000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 10500,
              "tax_amount_leg": 10500,
              "tax_base": 50000,
              "tax_base_leg": 50000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 10500,
          "tax_amount_leg": 10500,
          "tax_base": 50000,
          "tax_base_leg": 50000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": [],
      "status": "cancelled",
      "variable_symbol": "26900002",
      "tax_documents": [],
      "settled_by": null,
      "cancelled_at": "2026-12-03T06:53:04.340Z"
    }
  },
  "getProformaInvoicePdf": {},
  "emailProformaInvoice": {
    "request": {
      "to": "accounts@acme.example"
    },
    "response": {
      "id": 2,
      "success": true,
      "to": "accounts@acme.example",
      "subject": "Zálohová faktura PF26900001",
      "no": "PF26900001"
    }
  },
  "listAdvanceTaxDocuments": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 100,
      "next_cursor": null,
      "entities": [
        {
          "id": 6,
          "uid": "fb28a328-ca77-4aef-adc4-c683d65cb181",
          "created_at": "2026-12-03T06:53:04.392Z",
          "edited_at": null,
          "is_locked": false,
          "total_amount": 48400,
          "subtotal_amount": 40000,
          "tax_amount": 8400,
          "rounding_increment": null,
          "rounding_amount": 0,
          "amount_paid": 48400,
          "amount_due": 0,
          "bank_account": null,
          "billing_address": null,
          "shipping_address": null,
          "counter_id": 5,
          "currency": "CZK",
          "currency_coef": 1,
          "fx_rate": 1,
          "tax_fx_rate": 1,
          "currency_leg": "CZK",
          "subtotal_amount_leg": 40000,
          "tax_amount_leg": 8400,
          "rounding_amount_leg": 0,
          "total_amount_leg": 48400,
          "customer": {
            "id": 2001,
            "business_name": "Acme s.r.o.",
            "reg_no": "12345678",
            "vat_no": "CZ12345678",
            "address": {
              "address1": "Dlouhá 12",
              "postal_code": "110 00",
              "city": "Praha",
              "country": "CZ"
            },
            "email": "accounts@acme.example",
            "peppol_id": "9929:CZ12345678"
          },
          "contact_id": null,
          "culture": "cs-CZ",
          "document_locale": null,
          "template_layout": null,
          "date_issued": "2026-11-06",
          "date_taxable": "2026-11-06",
          "date_due": null,
          "delivery_condition": null,
          "no": "DZ202600001",
          "notes": null,
          "memo": null,
          "org": {
            "name": "Novák Consulting s.r.o.",
            "reg_no": "27074358",
            "tax_no": null,
            "vat_no": "CZ27074358",
            "eori_no": null,
            "address": {
              "city": "Praha",
              "country": "CZ",
              "address1": "Václavské náměstí 1",
              "postal_code": "110 00"
            },
            "info_legal": null,
            "config": {},
            "website": "https://novak-consulting.example",
            "email": "billing@novak-consulting.example",
            "phone": null,
            "fb": null,
            "insta": null
          },
          "payment_reference": "26900001",
          "payment_info": null,
          "payment_method": null,
          "constant_symbol": null,
          "specific_symbol": null,
          "proforma_id": 3,
          "proforma_no": "PF26900001",
          "payment": {
            "payment_id": 2,
            "source": "bank_transaction",
            "date": "2026-11-06",
            "amount": 48400,
            "accounted_amount": 48400
          },
          "fx_rate_date": null,
          "fx_rate_source": null,
          "payment_term": null,
          "precision": 2,
          "rate_format": null,
          "taxes_included": true,
          "tax_nexus": null,
          "type": null,
          "payment_status": "paid",
          "overdue_days": 0,
          "shop_a_object_id": null,
          "items": [
            {
              "id": 1,
              "title": "Platba k zálohové faktuře PF26900001",
              "description": null,
              "qty": 1,
              "rate": 48400,
              "rate_discounted": 48400,
              "discount_explicit": 0,
              "discount_implicit": 0,
              "amount": 48400,
              "net_amount": 40000,
              "shop_a_line_id": null,
              "psp_object_id": null,
              "shop_b_line_id": null,
              "eshop_line_id": null,
              "sku": null,
              "item": null,
              "variant": null,
              "unit": null,
              "gl_account": null,
              "supply": "goods",
              "taxes": [
                {
                  "id": 1,
                  "tax_rate": 21,
                  "tax_amount": 8400,
                  "tax_amount_leg": 8400,
                  "tax_base": 40000,
                  "tax_base_leg": 40000,
                  "currency_leg": "CZK",
                  "tax_index": null,
                  "tax_code": "S",
                  "tax_name": "VAT 21 %",
                  "rate_type": null,
                  "tax_details": null,
                  "tax_category": "S"
                }
              ]
            }
          ],
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 8400,
              "tax_amount_leg": 8400,
              "tax_base": 40000,
              "tax_base_leg": 40000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ],
          "shipping_charges": [],
          "discounts": [],
          "urls": []
        }
      ],
      "aggregations": []
    }
  },
  "getAdvanceTaxDocument": {
    "response": {
      "id": 6,
      "uid": "fb28a328-ca77-4aef-adc4-c683d65cb181",
      "created_at": "2026-12-03T06:53:04.392Z",
      "edited_at": null,
      "is_locked": false,
      "total_amount": 48400,
      "subtotal_amount": 40000,
      "tax_amount": 8400,
      "rounding_increment": null,
      "rounding_amount": 0,
      "amount_paid": 48400,
      "amount_due": 0,
      "bank_account": null,
      "billing_address": null,
      "shipping_address": null,
      "counter_id": 5,
      "currency": "CZK",
      "currency_coef": 1,
      "fx_rate": 1,
      "tax_fx_rate": 1,
      "currency_leg": "CZK",
      "subtotal_amount_leg": 40000,
      "tax_amount_leg": 8400,
      "rounding_amount_leg": 0,
      "total_amount_leg": 48400,
      "customer": {
        "id": 2001,
        "business_name": "Acme s.r.o.",
        "reg_no": "12345678",
        "vat_no": "CZ12345678",
        "address": {
          "address1": "Dlouhá 12",
          "postal_code": "110 00",
          "city": "Praha",
          "country": "CZ"
        },
        "email": "accounts@acme.example",
        "peppol_id": "9929:CZ12345678"
      },
      "contact_id": null,
      "culture": "cs-CZ",
      "document_locale": null,
      "template_layout": null,
      "date_issued": "2026-11-06",
      "date_taxable": "2026-11-06",
      "date_due": null,
      "delivery_condition": null,
      "no": "DZ202600001",
      "notes": null,
      "memo": null,
      "org": {
        "name": "Novák Consulting s.r.o.",
        "reg_no": "27074358",
        "tax_no": null,
        "vat_no": "CZ27074358",
        "eori_no": null,
        "address": {
          "city": "Praha",
          "country": "CZ",
          "address1": "Václavské náměstí 1",
          "postal_code": "110 00"
        },
        "info_legal": null,
        "config": {},
        "website": "https://novak-consulting.example",
        "email": "billing@novak-consulting.example",
        "phone": null,
        "fb": null,
        "insta": null
      },
      "payment_reference": "26900001",
      "payment_info": null,
      "payment_method": null,
      "constant_symbol": null,
      "specific_symbol": null,
      "proforma_id": 3,
      "proforma_no": "PF26900001",
      "payment": {
        "payment_id": 2,
        "source": "bank_transaction",
        "date": "2026-11-06",
        "amount": 48400,
        "accounted_amount": 48400
      },
      "fx_rate_date": null,
      "fx_rate_source": null,
      "payment_term": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": true,
      "tax_nexus": null,
      "type": null,
      "payment_status": "paid",
      "overdue_days": 0,
      "shop_a_object_id": null,
      "items": [
        {
          "id": 1,
          "title": "Platba k zálohové faktuře PF26900001",
          "description": null,
          "qty": 1,
          "rate": 48400,
          "rate_discounted": 48400,
          "discount_explicit": 0,
          "discount_implicit": 0,
          "amount": 48400,
          "net_amount": 40000,
          "shop_a_line_id": null,
          "psp_object_id": null,
          "shop_b_line_id": null,
          "eshop_line_id": null,
          "sku": null,
          "item": null,
          "variant": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": 1,
              "tax_rate": 21,
              "tax_amount": 8400,
              "tax_amount_leg": 8400,
              "tax_base": 40000,
              "tax_base_leg": 40000,
              "currency_leg": "CZK",
              "tax_index": null,
              "tax_code": "S",
              "tax_name": "VAT 21 %",
              "rate_type": null,
              "tax_details": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": 1,
          "tax_rate": 21,
          "tax_amount": 8400,
          "tax_amount_leg": 8400,
          "tax_base": 40000,
          "tax_base_leg": 40000,
          "currency_leg": "CZK",
          "tax_index": null,
          "tax_code": "S",
          "tax_name": "VAT 21 %",
          "rate_type": null,
          "tax_details": null,
          "tax_category": "S"
        }
      ],
      "shipping_charges": [],
      "discounts": [],
      "urls": []
    }
  },
  "getAdvanceTaxDocumentPdf": {},
  "getInvoiceUbl": {
    "responseText": {
      "mediaType": "application/xml",
      "text": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Invoice xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2\" xmlns:cac=\"urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2\" xmlns:cbc=\"urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2\">\n  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>\n  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>\n  <cbc:ID>FV202600001</cbc:ID>\n  <cbc:IssueDate>2026-11-03</cbc:IssueDate>\n  <cbc:DueDate>2026-11-17</cbc:DueDate>\n  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>\n  <cbc:DocumentCurrencyCode>CZK</cbc:DocumentCurrencyCode>\n  <cbc:BuyerReference>ACME-PO-2026-118</cbc:BuyerReference>\n  <cac:AccountingSupplierParty>\n    <cac:Party>\n      <cbc:EndpointID schemeID=\"9929\">CZ27074358</cbc:EndpointID>\n      <cac:PartyName>\n        <cbc:Name>Novák Consulting s.r.o.</cbc:Name>\n      </cac:PartyName>\n      <cac:PostalAddress>\n        <cbc:StreetName>Václavské náměstí 1</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:PostalAddress>\n      <cac:PartyTaxScheme>\n        <cbc:CompanyID>CZ27074358</cbc:CompanyID>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:PartyTaxScheme>\n      <cac:PartyLegalEntity>\n        <cbc:RegistrationName>Novák Consulting s.r.o.</cbc:RegistrationName>\n        <cbc:CompanyID>27074358</cbc:CompanyID>\n      </cac:PartyLegalEntity>\n    </cac:Party>\n  </cac:AccountingSupplierParty>\n  <cac:AccountingCustomerParty>\n    <cac:Party>\n      <cbc:EndpointID schemeID=\"9929\">CZ12345678</cbc:EndpointID>\n      <cac:PartyName>\n        <cbc:Name>Acme s.r.o.</cbc:Name>\n      </cac:PartyName>\n      <cac:PostalAddress>\n        <cbc:StreetName>Dlouhá 12</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:PostalAddress>\n      <cac:PartyTaxScheme>\n        <cbc:CompanyID>CZ12345678</cbc:CompanyID>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:PartyTaxScheme>\n      <cac:PartyLegalEntity>\n        <cbc:RegistrationName>Acme s.r.o.</cbc:RegistrationName>\n        <cbc:CompanyID>12345678</cbc:CompanyID>\n      </cac:PartyLegalEntity>\n      <cac:Contact>\n        <cbc:ElectronicMail>accounts@acme.example</cbc:ElectronicMail>\n      </cac:Contact>\n    </cac:Party>\n  </cac:AccountingCustomerParty>\n  <cac:Delivery>\n    <cbc:ActualDeliveryDate>2026-11-03</cbc:ActualDeliveryDate>\n    <cac:DeliveryLocation>\n      <cac:Address>\n        <cbc:StreetName>Dlouhá 12</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:Address>\n    </cac:DeliveryLocation>\n  </cac:Delivery>\n  <cac:PaymentMeans>\n    <cbc:PaymentMeansCode name=\"Credit transfer\">30</cbc:PaymentMeansCode>\n    <cbc:PaymentID>202600001</cbc:PaymentID>\n    <cac:PayeeFinancialAccount>\n      <cbc:ID>CZ6520100000002900123456</cbc:ID>\n      <cac:FinancialInstitutionBranch>\n        <cbc:ID>FIOBCZPP</cbc:ID>\n      </cac:FinancialInstitutionBranch>\n    </cac:PayeeFinancialAccount>\n  </cac:PaymentMeans>\n  <cac:TaxTotal>\n    <cbc:TaxAmount currencyID=\"CZK\">3888.00</cbc:TaxAmount>\n    <cac:TaxSubtotal>\n      <cbc:TaxableAmount currencyID=\"CZK\">18000.00</cbc:TaxableAmount>\n      <cbc:TaxAmount currencyID=\"CZK\">3780.00</cbc:TaxAmount>\n      <cac:TaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>21</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:TaxCategory>\n    </cac:TaxSubtotal>\n    <cac:TaxSubtotal>\n      <cbc:TaxableAmount currencyID=\"CZK\">900.00</cbc:TaxableAmount>\n      <cbc:TaxAmount currencyID=\"CZK\">108.00</cbc:TaxAmount>\n      <cac:TaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>12</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:TaxCategory>\n    </cac:TaxSubtotal>\n  </cac:TaxTotal>\n  <cac:LegalMonetaryTotal>\n    <cbc:LineExtensionAmount currencyID=\"CZK\">18900.00</cbc:LineExtensionAmount>\n    <cbc:TaxExclusiveAmount currencyID=\"CZK\">18900.00</cbc:TaxExclusiveAmount>\n    <cbc:TaxInclusiveAmount currencyID=\"CZK\">22788.00</cbc:TaxInclusiveAmount>\n    <cbc:PayableAmount currencyID=\"CZK\">22788.00</cbc:PayableAmount>\n  </cac:LegalMonetaryTotal>\n  <cac:InvoiceLine>\n    <cbc:ID>1</cbc:ID>\n    <cbc:InvoicedQuantity unitCode=\"HUR\">12</cbc:InvoicedQuantity>\n    <cbc:LineExtensionAmount currencyID=\"CZK\">18000.00</cbc:LineExtensionAmount>\n    <cac:Item>\n      <cbc:Name>Consulting hour</cbc:Name>\n      <cac:ClassifiedTaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>21</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:ClassifiedTaxCategory>\n    </cac:Item>\n    <cac:Price>\n      <cbc:PriceAmount currencyID=\"CZK\">1500</cbc:PriceAmount>\n    </cac:Price>\n  </cac:InvoiceLine>\n  <cac:InvoiceLine>\n    <cbc:ID>2</cbc:ID>\n    <cbc:InvoicedQuantity unitCode=\"C62\">2</cbc:InvoicedQuantity>\n    <cbc:LineExtensionAmount currencyID=\"CZK\">900.00</cbc:LineExtensionAmount>\n    <cac:Item>\n      <cbc:Name>Handbook</cbc:Name>\n      <cac:ClassifiedTaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>12</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:ClassifiedTaxCategory>\n    </cac:Item>\n    <cac:Price>\n      <cbc:PriceAmount currencyID=\"CZK\">450</cbc:PriceAmount>\n    </cac:Price>\n  </cac:InvoiceLine>\n</Invoice>\n"
    }
  },
  "getInvoiceIsdoc": {
    "responseText": {
      "mediaType": "application/xml",
      "text": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Invoice xmlns=\"http://isdoc.cz/namespace/2013\" version=\"6.0.2\">\n  <DocumentType>1</DocumentType>\n  <ID>FV202600001</ID>\n  <UUID>DFC9CA94-92E2-4E84-9D28-AFC491B6A9CF</UUID>\n  <IssueDate>2026-11-03</IssueDate>\n  <TaxPointDate>2026-11-03</TaxPointDate>\n  <VATApplicable>true</VATApplicable>\n  <ElectronicPossibilityAgreementReference/>\n  <LocalCurrencyCode>CZK</LocalCurrencyCode>\n  <CurrRate>1</CurrRate>\n  <RefCurrRate>1</RefCurrRate>\n  <AccountingSupplierParty>\n    <Party>\n      <PartyIdentification>\n        <ID>27074358</ID>\n      </PartyIdentification>\n      <PartyName>\n        <Name>Novák Consulting s.r.o.</Name>\n      </PartyName>\n      <PostalAddress>\n        <StreetName>Václavské náměstí</StreetName>\n        <BuildingNumber>1</BuildingNumber>\n        <CityName>Praha</CityName>\n        <PostalZone>110 00</PostalZone>\n        <Country>\n          <IdentificationCode>CZ</IdentificationCode>\n          <Name>Česko</Name>\n        </Country>\n      </PostalAddress>\n      <PartyTaxScheme>\n        <CompanyID>CZ27074358</CompanyID>\n        <TaxScheme>VAT</TaxScheme>\n      </PartyTaxScheme>\n      <Contact>\n        <ElectronicMail>billing@novak-consulting.example</ElectronicMail>\n      </Contact>\n    </Party>\n  </AccountingSupplierParty>\n  <AccountingCustomerParty>\n    <Party>\n      <PartyIdentification>\n        <ID>12345678</ID>\n      </PartyIdentification>\n      <PartyName>\n        <Name>Acme s.r.o.</Name>\n      </PartyName>\n      <PostalAddress>\n        <StreetName>Dlouhá</StreetName>\n        <BuildingNumber>12</BuildingNumber>\n        <CityName>Praha</CityName>\n        <PostalZone>110 00</PostalZone>\n        <Country>\n          <IdentificationCode>CZ</IdentificationCode>\n          <Name>Česko</Name>\n        </Country>\n      </PostalAddress>\n      <PartyTaxScheme>\n        <CompanyID>CZ12345678</CompanyID>\n        <TaxScheme>VAT</TaxScheme>\n      </PartyTaxScheme>\n      <Contact>\n        <ElectronicMail>accounts@acme.example</ElectronicMail>\n      </Contact>\n    </Party>\n  </AccountingCustomerParty>\n  <InvoiceLines>\n    <InvoiceLine>\n      <ID>1</ID>\n      <InvoicedQuantity unitCode=\"HUR\">12</InvoicedQuantity>\n      <LineExtensionAmount>18000.00</LineExtensionAmount>\n      <LineExtensionAmountTaxInclusive>21780.00</LineExtensionAmountTaxInclusive>\n      <LineExtensionTaxAmount>3780.00</LineExtensionTaxAmount>\n      <UnitPrice>1500</UnitPrice>\n      <UnitPriceTaxInclusive>1815</UnitPriceTaxInclusive>\n      <ClassifiedTaxCategory>\n        <Percent>21</Percent>\n        <VATCalculationMethod>0</VATCalculationMethod>\n      </ClassifiedTaxCategory>\n      <Item>\n        <Description>Consulting hour</Description>\n      </Item>\n    </InvoiceLine>\n    <InvoiceLine>\n      <ID>2</ID>\n      <InvoicedQuantity unitCode=\"C62\">2</InvoicedQuantity>\n      <LineExtensionAmount>900.00</LineExtensionAmount>\n      <LineExtensionAmountTaxInclusive>1008.00</LineExtensionAmountTaxInclusive>\n      <LineExtensionTaxAmount>108.00</LineExtensionTaxAmount>\n      <UnitPrice>450</UnitPrice>\n      <UnitPriceTaxInclusive>504</UnitPriceTaxInclusive>\n      <ClassifiedTaxCategory>\n        <Percent>12</Percent>\n        <VATCalculationMethod>0</VATCalculationMethod>\n      </ClassifiedTaxCategory>\n      <Item>\n        <Description>Handbook</Description>\n      </Item>\n    </InvoiceLine>\n  </InvoiceLines>\n  <TaxTotal>\n    <TaxSubTotal>\n      <TaxableAmount>18000.00</TaxableAmount>\n      <TaxAmount>3780.00</TaxAmount>\n      <TaxInclusiveAmount>21780.00</TaxInclusiveAmount>\n      <AlreadyClaimedTaxableAmount>0.00</AlreadyClaimedTaxableAmount>\n      <AlreadyClaimedTaxAmount>0.00</AlreadyClaimedTaxAmount>\n      <AlreadyClaimedTaxInclusiveAmount>0.00</AlreadyClaimedTaxInclusiveAmount>\n      <DifferenceTaxableAmount>18000.00</DifferenceTaxableAmount>\n      <DifferenceTaxAmount>3780.00</DifferenceTaxAmount>\n      <DifferenceTaxInclusiveAmount>21780.00</DifferenceTaxInclusiveAmount>\n      <TaxCategory>\n        <Percent>21</Percent>\n      </TaxCategory>\n    </TaxSubTotal>\n    <TaxSubTotal>\n      <TaxableAmount>900.00</TaxableAmount>\n      <TaxAmount>108.00</TaxAmount>\n      <TaxInclusiveAmount>1008.00</TaxInclusiveAmount>\n      <AlreadyClaimedTaxableAmount>0.00</AlreadyClaimedTaxableAmount>\n      <AlreadyClaimedTaxAmount>0.00</AlreadyClaimedTaxAmount>\n      <AlreadyClaimedTaxInclusiveAmount>0.00</AlreadyClaimedTaxInclusiveAmount>\n      <DifferenceTaxableAmount>900.00</DifferenceTaxableAmount>\n      <DifferenceTaxAmount>108.00</DifferenceTaxAmount>\n      <DifferenceTaxInclusiveAmount>1008.00</DifferenceTaxInclusiveAmount>\n      <TaxCategory>\n        <Percent>12</Percent>\n      </TaxCategory>\n    </TaxSubTotal>\n    <TaxAmount>3888.00</TaxAmount>\n  </TaxTotal>\n  <LegalMonetaryTotal>\n    <TaxExclusiveAmount>18900.00</TaxExclusiveAmount>\n    <TaxInclusiveAmount>22788.00</TaxInclusiveAmount>\n    <AlreadyClaimedTaxExclusiveAmount>0.00</AlreadyClaimedTaxExclusiveAmount>\n    <AlreadyClaimedTaxInclusiveAmount>0.00</AlreadyClaimedTaxInclusiveAmount>\n    <DifferenceTaxExclusiveAmount>18900.00</DifferenceTaxExclusiveAmount>\n    <DifferenceTaxInclusiveAmount>22788.00</DifferenceTaxInclusiveAmount>\n    <PaidDepositsAmount>0.00</PaidDepositsAmount>\n    <PayableAmount>22788.00</PayableAmount>\n  </LegalMonetaryTotal>\n</Invoice>\n"
    }
  },
  "getCreditNoteUbl": {
    "responseText": {
      "mediaType": "application/xml",
      "text": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<CreditNote xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2\" xmlns:cac=\"urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2\" xmlns:cbc=\"urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2\">\n  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>\n  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>\n  <cbc:ID>CN202600001</cbc:ID>\n  <cbc:IssueDate>2026-11-10</cbc:IssueDate>\n  <cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>\n  <cbc:Note>Two consulting hours were not delivered.</cbc:Note>\n  <cbc:DocumentCurrencyCode>CZK</cbc:DocumentCurrencyCode>\n  <cbc:BuyerReference>ACME-PO-2026-118</cbc:BuyerReference>\n  <cac:BillingReference>\n    <cac:InvoiceDocumentReference>\n      <cbc:ID>FV202600001</cbc:ID>\n      <cbc:IssueDate>2026-11-03</cbc:IssueDate>\n    </cac:InvoiceDocumentReference>\n  </cac:BillingReference>\n  <cac:AccountingSupplierParty>\n    <cac:Party>\n      <cbc:EndpointID schemeID=\"9929\">CZ27074358</cbc:EndpointID>\n      <cac:PartyName>\n        <cbc:Name>Novák Consulting s.r.o.</cbc:Name>\n      </cac:PartyName>\n      <cac:PostalAddress>\n        <cbc:StreetName>Václavské náměstí 1</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:PostalAddress>\n      <cac:PartyTaxScheme>\n        <cbc:CompanyID>CZ27074358</cbc:CompanyID>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:PartyTaxScheme>\n      <cac:PartyLegalEntity>\n        <cbc:RegistrationName>Novák Consulting s.r.o.</cbc:RegistrationName>\n        <cbc:CompanyID>27074358</cbc:CompanyID>\n      </cac:PartyLegalEntity>\n    </cac:Party>\n  </cac:AccountingSupplierParty>\n  <cac:AccountingCustomerParty>\n    <cac:Party>\n      <cbc:EndpointID schemeID=\"9929\">CZ12345678</cbc:EndpointID>\n      <cac:PartyName>\n        <cbc:Name>Acme s.r.o.</cbc:Name>\n      </cac:PartyName>\n      <cac:PostalAddress>\n        <cbc:StreetName>Dlouhá 12</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:PostalAddress>\n      <cac:PartyTaxScheme>\n        <cbc:CompanyID>CZ12345678</cbc:CompanyID>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:PartyTaxScheme>\n      <cac:PartyLegalEntity>\n        <cbc:RegistrationName>Acme s.r.o.</cbc:RegistrationName>\n        <cbc:CompanyID>12345678</cbc:CompanyID>\n      </cac:PartyLegalEntity>\n      <cac:Contact>\n        <cbc:ElectronicMail>accounts@acme.example</cbc:ElectronicMail>\n      </cac:Contact>\n    </cac:Party>\n  </cac:AccountingCustomerParty>\n  <cac:Delivery>\n    <cbc:ActualDeliveryDate>2026-11-10</cbc:ActualDeliveryDate>\n    <cac:DeliveryLocation>\n      <cac:Address>\n        <cbc:StreetName>Dlouhá 12</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:Address>\n    </cac:DeliveryLocation>\n  </cac:Delivery>\n  <cac:PaymentMeans>\n    <cbc:PaymentMeansCode name=\"Credit transfer\">30</cbc:PaymentMeansCode>\n    <cbc:PaymentID>202600001</cbc:PaymentID>\n    <cac:PayeeFinancialAccount>\n      <cbc:ID>CZ6520100000002900123456</cbc:ID>\n      <cac:FinancialInstitutionBranch>\n        <cbc:ID>FIOBCZPP</cbc:ID>\n      </cac:FinancialInstitutionBranch>\n    </cac:PayeeFinancialAccount>\n  </cac:PaymentMeans>\n  <cac:TaxTotal>\n    <cbc:TaxAmount currencyID=\"CZK\">630.00</cbc:TaxAmount>\n    <cac:TaxSubtotal>\n      <cbc:TaxableAmount currencyID=\"CZK\">3000.00</cbc:TaxableAmount>\n      <cbc:TaxAmount currencyID=\"CZK\">630.00</cbc:TaxAmount>\n      <cac:TaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>21</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:TaxCategory>\n    </cac:TaxSubtotal>\n  </cac:TaxTotal>\n  <cac:LegalMonetaryTotal>\n    <cbc:LineExtensionAmount currencyID=\"CZK\">3000.00</cbc:LineExtensionAmount>\n    <cbc:TaxExclusiveAmount currencyID=\"CZK\">3000.00</cbc:TaxExclusiveAmount>\n    <cbc:TaxInclusiveAmount currencyID=\"CZK\">3630.00</cbc:TaxInclusiveAmount>\n    <cbc:PayableAmount currencyID=\"CZK\">3630.00</cbc:PayableAmount>\n  </cac:LegalMonetaryTotal>\n  <cac:CreditNoteLine>\n    <cbc:ID>1</cbc:ID>\n    <cbc:CreditedQuantity unitCode=\"HUR\">2</cbc:CreditedQuantity>\n    <cbc:LineExtensionAmount currencyID=\"CZK\">3000.00</cbc:LineExtensionAmount>\n    <cac:Item>\n      <cbc:Name>Consulting hour</cbc:Name>\n      <cac:ClassifiedTaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>21</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:ClassifiedTaxCategory>\n    </cac:Item>\n    <cac:Price>\n      <cbc:PriceAmount currencyID=\"CZK\">1500</cbc:PriceAmount>\n    </cac:Price>\n  </cac:CreditNoteLine>\n</CreditNote>\n"
    }
  },
  "getCreditNoteIsdoc": {
    "responseText": {
      "mediaType": "application/xml",
      "text": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Invoice xmlns=\"http://isdoc.cz/namespace/2013\" version=\"6.0.2\">\n  <DocumentType>2</DocumentType>\n  <ID>CN202600001</ID>\n  <UUID>089CB94A-A92F-44B7-AC9F-89E0DB17B861</UUID>\n  <IssueDate>2026-11-10</IssueDate>\n  <TaxPointDate>2026-11-10</TaxPointDate>\n  <VATApplicable>true</VATApplicable>\n  <ElectronicPossibilityAgreementReference/>\n  <Note>Two consulting hours were not delivered.</Note>\n  <LocalCurrencyCode>CZK</LocalCurrencyCode>\n  <CurrRate>1</CurrRate>\n  <RefCurrRate>1</RefCurrRate>\n  <AccountingSupplierParty>\n    <Party>\n      <PartyIdentification>\n        <ID>27074358</ID>\n      </PartyIdentification>\n      <PartyName>\n        <Name>Novák Consulting s.r.o.</Name>\n      </PartyName>\n      <PostalAddress>\n        <StreetName>Václavské náměstí</StreetName>\n        <BuildingNumber>1</BuildingNumber>\n        <CityName>Praha</CityName>\n        <PostalZone>110 00</PostalZone>\n        <Country>\n          <IdentificationCode>CZ</IdentificationCode>\n          <Name>Česko</Name>\n        </Country>\n      </PostalAddress>\n      <PartyTaxScheme>\n        <CompanyID>CZ27074358</CompanyID>\n        <TaxScheme>VAT</TaxScheme>\n      </PartyTaxScheme>\n      <Contact>\n        <ElectronicMail>billing@novak-consulting.example</ElectronicMail>\n      </Contact>\n    </Party>\n  </AccountingSupplierParty>\n  <AccountingCustomerParty>\n    <Party>\n      <PartyIdentification>\n        <ID>12345678</ID>\n      </PartyIdentification>\n      <PartyName>\n        <Name>Acme s.r.o.</Name>\n      </PartyName>\n      <PostalAddress>\n        <StreetName>Dlouhá</StreetName>\n        <BuildingNumber>12</BuildingNumber>\n        <CityName>Praha</CityName>\n        <PostalZone>110 00</PostalZone>\n        <Country>\n          <IdentificationCode>CZ</IdentificationCode>\n          <Name>Česko</Name>\n        </Country>\n      </PostalAddress>\n      <PartyTaxScheme>\n        <CompanyID>CZ12345678</CompanyID>\n        <TaxScheme>VAT</TaxScheme>\n      </PartyTaxScheme>\n      <Contact>\n        <ElectronicMail>accounts@acme.example</ElectronicMail>\n      </Contact>\n    </Party>\n  </AccountingCustomerParty>\n  <OriginalDocumentReferences>\n    <OriginalDocumentReference id=\"original\">\n      <ID>FV202600001</ID>\n      <IssueDate>2026-11-03</IssueDate>\n      <UUID>DFC9CA94-92E2-4E84-9D28-AFC491B6A9CF</UUID>\n    </OriginalDocumentReference>\n  </OriginalDocumentReferences>\n  <InvoiceLines>\n    <InvoiceLine>\n      <ID>1</ID>\n      <InvoicedQuantity unitCode=\"HUR\">2</InvoicedQuantity>\n      <LineExtensionAmount>3000.00</LineExtensionAmount>\n      <LineExtensionAmountTaxInclusive>3630.00</LineExtensionAmountTaxInclusive>\n      <LineExtensionTaxAmount>630.00</LineExtensionTaxAmount>\n      <UnitPrice>1500</UnitPrice>\n      <UnitPriceTaxInclusive>1815</UnitPriceTaxInclusive>\n      <ClassifiedTaxCategory>\n        <Percent>21</Percent>\n        <VATCalculationMethod>0</VATCalculationMethod>\n      </ClassifiedTaxCategory>\n      <Item>\n        <Description>Consulting hour</Description>\n      </Item>\n    </InvoiceLine>\n  </InvoiceLines>\n  <TaxTotal>\n    <TaxSubTotal>\n      <TaxableAmount>3000.00</TaxableAmount>\n      <TaxAmount>630.00</TaxAmount>\n      <TaxInclusiveAmount>3630.00</TaxInclusiveAmount>\n      <AlreadyClaimedTaxableAmount>0.00</AlreadyClaimedTaxableAmount>\n      <AlreadyClaimedTaxAmount>0.00</AlreadyClaimedTaxAmount>\n      <AlreadyClaimedTaxInclusiveAmount>0.00</AlreadyClaimedTaxInclusiveAmount>\n      <DifferenceTaxableAmount>3000.00</DifferenceTaxableAmount>\n      <DifferenceTaxAmount>630.00</DifferenceTaxAmount>\n      <DifferenceTaxInclusiveAmount>3630.00</DifferenceTaxInclusiveAmount>\n      <TaxCategory>\n        <Percent>21</Percent>\n      </TaxCategory>\n    </TaxSubTotal>\n    <TaxAmount>630.00</TaxAmount>\n  </TaxTotal>\n  <LegalMonetaryTotal>\n    <TaxExclusiveAmount>3000.00</TaxExclusiveAmount>\n    <TaxInclusiveAmount>3630.00</TaxInclusiveAmount>\n    <AlreadyClaimedTaxExclusiveAmount>0.00</AlreadyClaimedTaxExclusiveAmount>\n    <AlreadyClaimedTaxInclusiveAmount>0.00</AlreadyClaimedTaxInclusiveAmount>\n    <DifferenceTaxExclusiveAmount>3000.00</DifferenceTaxExclusiveAmount>\n    <DifferenceTaxInclusiveAmount>3630.00</DifferenceTaxInclusiveAmount>\n    <PaidDepositsAmount>0.00</PaidDepositsAmount>\n    <PayableAmount>3630.00</PayableAmount>\n  </LegalMonetaryTotal>\n</Invoice>\n"
    }
  },
  "getAgedReceivables": {
    "response": {
      "as_of": "2026-11-30",
      "totals": [
        {
          "currency": "CZK",
          "current": 30200,
          "days_1_30": 300,
          "days_31_60": 0,
          "days_61_90": 0,
          "days_over_90": 0,
          "total": 30500
        }
      ],
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "contact": {
            "id": 2001,
            "name": "Acme s.r.o."
          },
          "currency": "CZK",
          "documents": 2,
          "current": 24200,
          "days_1_30": 300,
          "days_31_60": 0,
          "days_61_90": 0,
          "days_over_90": 0,
          "total": 24500
        },
        {
          "contact": {
            "id": 2002,
            "name": "Kunde GmbH"
          },
          "currency": "CZK",
          "documents": 1,
          "current": 6000,
          "days_1_30": 0,
          "days_31_60": 0,
          "days_61_90": 0,
          "days_over_90": 0,
          "total": 6000
        }
      ],
      "aggregations": []
    }
  },
  "getCustomerStatement": {
    "response": {
      "customer": {
        "id": 2001,
        "name": "Acme s.r.o."
      },
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "currencies": [
        {
          "currency": "CZK",
          "opening_balance": 0,
          "lines": [
            {
              "date": "2026-11-03",
              "kind": "invoice",
              "document": {
                "type": "sales_invoice",
                "id": 1,
                "no": "FV202600001"
              },
              "payment": null,
              "amount": 22788,
              "balance": 22788
            },
            {
              "date": "2026-11-10",
              "kind": "credit_note",
              "document": {
                "type": "sales_credit_note",
                "id": 2,
                "no": "CN202600001"
              },
              "payment": null,
              "amount": -3630,
              "balance": 19158
            },
            {
              "date": "2026-11-12",
              "kind": "invoice",
              "document": {
                "type": "sales_invoice",
                "id": 9,
                "no": "FV202600003"
              },
              "payment": null,
              "amount": 2420,
              "balance": 21578
            },
            {
              "date": "2026-11-12",
              "kind": "invoice",
              "document": {
                "type": "sales_invoice",
                "id": 10,
                "no": "FV202600004"
              },
              "payment": null,
              "amount": 300,
              "balance": 21878
            },
            {
              "date": "2026-11-12",
              "kind": "invoice",
              "document": {
                "type": "sales_invoice",
                "id": 11,
                "no": "FV202600005"
              },
              "payment": null,
              "amount": 300,
              "balance": 22178
            },
            {
              "date": "2026-11-16",
              "kind": "payment",
              "document": {
                "type": "sales_invoice",
                "id": 1,
                "no": "FV202600001"
              },
              "payment": {
                "id": 3,
                "source": "bank_transaction"
              },
              "amount": -19158,
              "balance": 3020
            },
            {
              "date": "2026-11-24",
              "kind": "payment",
              "document": {
                "type": "sales_invoice",
                "id": 9,
                "no": "FV202600003"
              },
              "payment": {
                "id": 4,
                "source": "bank_transaction"
              },
              "amount": -2420,
              "balance": 600
            },
            {
              "date": "2026-11-27",
              "kind": "payment",
              "document": {
                "type": "sales_invoice",
                "id": 10,
                "no": "FV202600004"
              },
              "payment": {
                "id": 6,
                "source": "bank_transaction"
              },
              "amount": -300,
              "balance": 300
            },
            {
              "date": "2026-11-27",
              "kind": "payment",
              "document": {
                "type": "sales_invoice",
                "id": 11,
                "no": "FV202600005"
              },
              "payment": {
                "id": 6,
                "source": "bank_transaction"
              },
              "amount": -300,
              "balance": 0
            },
            {
              "date": "2026-11-27",
              "kind": "payment",
              "document": {
                "type": "sales_invoice",
                "id": 11,
                "no": "FV202600005"
              },
              "payment": {
                "id": 6,
                "source": "bank_transaction"
              },
              "amount": 300,
              "balance": 300
            },
            {
              "date": "2026-11-30",
              "kind": "invoice",
              "document": {
                "type": "sales_invoice",
                "id": 7,
                "no": "FV202600002"
              },
              "payment": null,
              "amount": 72600,
              "balance": 72900
            }
          ],
          "closing_balance": 72900
        }
      ]
    }
  },
  "putReminderSettings": {
    "request": {
      "enabled": true,
      "statutory_interest": true,
      "levels": [
        {
          "days_after_due": 7,
          "fee": {
            "CZK": 250
          },
          "email": {
            "cs-CZ": {
              "subject": "Upomínka: {{ invoices }}",
              "body": "Dobrý den,\nevidujeme neuhrazené faktury {{ invoices }}, celkem {{ total_due }}. Prosíme o úhradu.\n{{ org }}"
            },
            "en": {
              "subject": "Payment reminder: {{ invoices }}",
              "body": "Hello,\ninvoices {{ invoices }} are overdue, {{ total_due }} in all. Please pay them.\n{{ org }}"
            }
          }
        },
        {
          "days_after_due": 30,
          "fee": {
            "CZK": 500,
            "EUR": 20
          },
          "email": {
            "cs-CZ": {
              "subject": "Druhá upomínka: {{ invoices }}",
              "body": "Dobrý den,\nstále evidujeme {{ total_due }}.\n{{ org }}"
            }
          }
        }
      ]
    },
    "response": {
      "enabled": true,
      "statutory_interest": true,
      "levels": [
        {
          "days_after_due": 7,
          "fee": {
            "CZK": 250
          },
          "email": {
            "cs-CZ": {
              "subject": "Upomínka: {{ invoices }}",
              "body": "Dobrý den,\nevidujeme neuhrazené faktury {{ invoices }}, celkem {{ total_due }}. Prosíme o úhradu.\n{{ org }}"
            },
            "en": {
              "subject": "Payment reminder: {{ invoices }}",
              "body": "Hello,\ninvoices {{ invoices }} are overdue, {{ total_due }} in all. Please pay them.\n{{ org }}"
            }
          }
        },
        {
          "days_after_due": 30,
          "fee": {
            "CZK": 500,
            "EUR": 20
          },
          "email": {
            "cs-CZ": {
              "subject": "Druhá upomínka: {{ invoices }}",
              "body": "Dobrý den,\nstále evidujeme {{ total_due }}.\n{{ org }}"
            }
          }
        }
      ],
      "updated_at": "2026-12-03T06:53:06.221Z"
    }
  },
  "getReminderSettings": {
    "response": {
      "levels": [
        {
          "fee": {
            "CZK": 250
          },
          "email": {
            "en": {
              "body": "Hello,\ninvoices {{ invoices }} are overdue, {{ total_due }} in all. Please pay them.\n{{ org }}",
              "subject": "Payment reminder: {{ invoices }}"
            },
            "cs-CZ": {
              "body": "Dobrý den,\nevidujeme neuhrazené faktury {{ invoices }}, celkem {{ total_due }}. Prosíme o úhradu.\n{{ org }}",
              "subject": "Upomínka: {{ invoices }}"
            }
          },
          "days_after_due": 7
        },
        {
          "fee": {
            "CZK": 500,
            "EUR": 20
          },
          "email": {
            "cs-CZ": {
              "body": "Dobrý den,\nstále evidujeme {{ total_due }}.\n{{ org }}",
              "subject": "Druhá upomínka: {{ invoices }}"
            }
          },
          "days_after_due": 30
        }
      ],
      "enabled": true,
      "statutory_interest": true,
      "updated_at": "2026-12-03T06:53:06.221Z"
    }
  },
  "deleteReminderSettings": {
    "response": {
      "enabled": false,
      "statutory_interest": true,
      "levels": [],
      "updated_at": null
    }
  },
  "runReminders": {
    "request": {
      "date": "2026-11-28"
    },
    "response": {
      "date": "2026-11-28",
      "reminders": [
        {
          "id": 1,
          "customer": "Acme s.r.o.",
          "to": "accounts@acme.example",
          "lines": [
            {
              "id": 1,
              "reminder_id": 1,
              "invoice_id": 14,
              "invoice_no": "FV202600008",
              "level": 2,
              "date": "2026-11-28",
              "currency": "CZK",
              "amount_due": 10890,
              "days_overdue": 40,
              "interest_rate": 11.25,
              "interest": 134.26,
              "fee": 500,
              "email_status": "pending",
              "to": "accounts@acme.example",
              "created_at": "2026-12-03T06:53:06.241Z"
            }
          ]
        }
      ]
    }
  },
  "getReminderPdf": {},
  "listInvoiceReminders": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "reminder_id": 1,
          "invoice_id": 14,
          "invoice_no": "FV202600008",
          "level": 2,
          "date": "2026-11-28",
          "currency": "CZK",
          "amount_due": 10890,
          "days_overdue": 40,
          "interest_rate": 11.25,
          "interest": 134.26,
          "fee": 500,
          "email_status": "written",
          "to": "accounts@acme.example",
          "created_at": "2026-12-03T06:53:06.241Z"
        }
      ],
      "aggregations": []
    }
  },
  "createRecurringInvoice": {
    "request": {
      "name": "Hosting Acme",
      "template": {
        "customer": {
          "id": 2001,
          "business_name": "Acme s.r.o.",
          "reg_no": "12345678",
          "vat_no": "CZ12345678",
          "peppol_id": "9929:CZ12345678",
          "email": "accounts@acme.example",
          "address": {
            "address1": "Dlouhá 12",
            "city": "Praha",
            "postal_code": "110 00",
            "country": "CZ"
          }
        },
        "currency": "CZK",
        "due_in_days": 14,
        "notes": "Hosting for {{ period_start }} to {{ period_end }}",
        "items": [
          {
            "title": "Managed hosting {{ period_start }}–{{ period_end }}",
            "qty": 1,
            "rate": 2400,
            "taxes": [
              {
                "tax_code": "S",
                "tax_name": "VAT 21 %",
                "tax_rate": 21
              }
            ]
          }
        ]
      },
      "schedule": {
        "frequency": "monthly",
        "interval": 1,
        "day_of_month": 1,
        "start_date": "2026-10-01"
      },
      "send_email": false
    },
    "response": {
      "id": 1,
      "name": "Hosting Acme",
      "status": "active",
      "paused_reason": null,
      "template": {
        "items": [
          {
            "qty": 1,
            "rate": 2400,
            "taxes": [
              {
                "tax_code": "S",
                "tax_name": "VAT 21 %",
                "tax_rate": 21
              }
            ],
            "title": "Managed hosting {{ period_start }}–{{ period_end }}"
          }
        ],
        "notes": "Hosting for {{ period_start }} to {{ period_end }}",
        "currency": "CZK",
        "customer": {
          "id": 2001,
          "email": "accounts@acme.example",
          "reg_no": "12345678",
          "vat_no": "CZ12345678",
          "address": {
            "city": "Praha",
            "country": "CZ",
            "address1": "Dlouhá 12",
            "postal_code": "110 00"
          },
          "peppol_id": "9929:CZ12345678",
          "business_name": "Acme s.r.o."
        },
        "due_in_days": 14
      },
      "schedule": {
        "interval": 1,
        "frequency": "monthly",
        "start_date": "2026-10-01",
        "day_of_month": 1
      },
      "send_email": false,
      "next_issue_date": "2026-10-01",
      "upcoming_dates": [
        "2026-10-01",
        "2026-11-01",
        "2026-12-01",
        "2027-01-01",
        "2027-02-01"
      ],
      "issued_count": 0,
      "last_issued_date": null,
      "created_at": "2026-12-03T06:53:07.175Z",
      "updated_at": "2026-12-03T06:53:07.175Z"
    }
  },
  "listRecurringInvoices": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "name": "Hosting Acme (new rate)",
          "status": "active",
          "paused_reason": null,
          "template": {
            "items": [
              {
                "qty": 1,
                "rate": 2600,
                "taxes": [
                  {
                    "tax_code": "S",
                    "tax_name": "VAT 21 %",
                    "tax_rate": 21
                  }
                ],
                "title": "Managed hosting {{ period_start }}–{{ period_end }}"
              }
            ],
            "currency": "CZK",
            "customer": {
              "id": 2001,
              "email": "accounts@acme.example",
              "reg_no": "12345678",
              "vat_no": "CZ12345678",
              "address": {
                "city": "Praha",
                "country": "CZ",
                "address1": "Dlouhá 12",
                "postal_code": "110 00"
              },
              "peppol_id": "9929:CZ12345678",
              "business_name": "Acme s.r.o."
            },
            "due_in_days": 14
          },
          "schedule": {
            "interval": 1,
            "frequency": "monthly",
            "start_date": "2026-10-01",
            "day_of_month": 1
          },
          "send_email": false,
          "next_issue_date": "2027-01-01",
          "upcoming_dates": [
            "2027-01-01",
            "2027-02-01",
            "2027-03-01",
            "2027-04-01",
            "2027-05-01"
          ],
          "issued_count": 3,
          "last_issued_date": "2026-12-01",
          "created_at": "2026-12-03T06:53:07.175Z",
          "updated_at": "2026-12-03T06:53:07.314Z"
        }
      ],
      "aggregations": []
    }
  },
  "getRecurringInvoice": {
    "response": {
      "id": 1,
      "name": "Hosting Acme",
      "status": "active",
      "paused_reason": null,
      "template": {
        "items": [
          {
            "qty": 1,
            "rate": 2400,
            "taxes": [
              {
                "tax_code": "S",
                "tax_name": "VAT 21 %",
                "tax_rate": 21
              }
            ],
            "title": "Managed hosting {{ period_start }}–{{ period_end }}"
          }
        ],
        "notes": "Hosting for {{ period_start }} to {{ period_end }}",
        "currency": "CZK",
        "customer": {
          "id": 2001,
          "email": "accounts@acme.example",
          "reg_no": "12345678",
          "vat_no": "CZ12345678",
          "address": {
            "city": "Praha",
            "country": "CZ",
            "address1": "Dlouhá 12",
            "postal_code": "110 00"
          },
          "peppol_id": "9929:CZ12345678",
          "business_name": "Acme s.r.o."
        },
        "due_in_days": 14
      },
      "schedule": {
        "interval": 1,
        "frequency": "monthly",
        "start_date": "2026-10-01",
        "day_of_month": 1
      },
      "send_email": false,
      "next_issue_date": "2027-01-01",
      "upcoming_dates": [
        "2027-01-01",
        "2027-02-01",
        "2027-03-01",
        "2027-04-01",
        "2027-05-01"
      ],
      "issued_count": 3,
      "last_issued_date": "2026-12-01",
      "created_at": "2026-12-03T06:53:07.175Z",
      "updated_at": "2026-12-03T06:53:07.204Z"
    }
  },
  "updateRecurringInvoice": {
    "request": {
      "name": "Hosting Acme (new rate)",
      "template": {
        "customer": {
          "id": 2001,
          "business_name": "Acme s.r.o.",
          "reg_no": "12345678",
          "vat_no": "CZ12345678",
          "peppol_id": "9929:CZ12345678",
          "email": "accounts@acme.example",
          "address": {
            "address1": "Dlouhá 12",
            "city": "Praha",
            "postal_code": "110 00",
            "country": "CZ"
          }
        },
        "currency": "CZK",
        "due_in_days": 14,
        "items": [
          {
            "title": "Managed hosting {{ period_start }}–{{ period_end }}",
            "qty": 1,
            "rate": 2600,
            "taxes": [
              {
                "tax_code": "S",
                "tax_name": "VAT 21 %",
                "tax_rate": 21
              }
            ]
          }
        ]
      },
      "schedule": {
        "frequency": "monthly",
        "interval": 1,
        "day_of_month": 1,
        "start_date": "2026-10-01"
      }
    },
    "response": {
      "id": 1,
      "name": "Hosting Acme (new rate)",
      "status": "active",
      "paused_reason": null,
      "template": {
        "items": [
          {
            "qty": 1,
            "rate": 2600,
            "taxes": [
              {
                "tax_code": "S",
                "tax_name": "VAT 21 %",
                "tax_rate": 21
              }
            ],
            "title": "Managed hosting {{ period_start }}–{{ period_end }}"
          }
        ],
        "currency": "CZK",
        "customer": {
          "id": 2001,
          "email": "accounts@acme.example",
          "reg_no": "12345678",
          "vat_no": "CZ12345678",
          "address": {
            "city": "Praha",
            "country": "CZ",
            "address1": "Dlouhá 12",
            "postal_code": "110 00"
          },
          "peppol_id": "9929:CZ12345678",
          "business_name": "Acme s.r.o."
        },
        "due_in_days": 14
      },
      "schedule": {
        "interval": 1,
        "frequency": "monthly",
        "start_date": "2026-10-01",
        "day_of_month": 1
      },
      "send_email": false,
      "next_issue_date": "2027-01-01",
      "upcoming_dates": [
        "2027-01-01",
        "2027-02-01",
        "2027-03-01",
        "2027-04-01",
        "2027-05-01"
      ],
      "issued_count": 3,
      "last_issued_date": "2026-12-01",
      "created_at": "2026-12-03T06:53:07.175Z",
      "updated_at": "2026-12-03T06:53:07.287Z"
    }
  },
  "deleteRecurringInvoice": {
    "response": {
      "id": 2,
      "deleted": true
    }
  },
  "pauseRecurringInvoice": {
    "response": {
      "id": 1,
      "name": "Hosting Acme (new rate)",
      "status": "paused",
      "paused_reason": null,
      "template": {
        "items": [
          {
            "qty": 1,
            "rate": 2600,
            "taxes": [
              {
                "tax_code": "S",
                "tax_name": "VAT 21 %",
                "tax_rate": 21
              }
            ],
            "title": "Managed hosting {{ period_start }}–{{ period_end }}"
          }
        ],
        "currency": "CZK",
        "customer": {
          "id": 2001,
          "email": "accounts@acme.example",
          "reg_no": "12345678",
          "vat_no": "CZ12345678",
          "address": {
            "city": "Praha",
            "country": "CZ",
            "address1": "Dlouhá 12",
            "postal_code": "110 00"
          },
          "peppol_id": "9929:CZ12345678",
          "business_name": "Acme s.r.o."
        },
        "due_in_days": 14
      },
      "schedule": {
        "interval": 1,
        "frequency": "monthly",
        "start_date": "2026-10-01",
        "day_of_month": 1
      },
      "send_email": false,
      "next_issue_date": "2027-01-01",
      "upcoming_dates": [
        "2027-01-01",
        "2027-02-01",
        "2027-03-01",
        "2027-04-01",
        "2027-05-01"
      ],
      "issued_count": 3,
      "last_issued_date": "2026-12-01",
      "created_at": "2026-12-03T06:53:07.175Z",
      "updated_at": "2026-12-03T06:53:07.305Z"
    }
  },
  "resumeRecurringInvoice": {
    "response": {
      "id": 1,
      "name": "Hosting Acme (new rate)",
      "status": "active",
      "paused_reason": null,
      "template": {
        "items": [
          {
            "qty": 1,
            "rate": 2600,
            "taxes": [
              {
                "tax_code": "S",
                "tax_name": "VAT 21 %",
                "tax_rate": 21
              }
            ],
            "title": "Managed hosting {{ period_start }}–{{ period_end }}"
          }
        ],
        "currency": "CZK",
        "customer": {
          "id": 2001,
          "email": "accounts@acme.example",
          "reg_no": "12345678",
          "vat_no": "CZ12345678",
          "address": {
            "city": "Praha",
            "country": "CZ",
            "address1": "Dlouhá 12",
            "postal_code": "110 00"
          },
          "peppol_id": "9929:CZ12345678",
          "business_name": "Acme s.r.o."
        },
        "due_in_days": 14
      },
      "schedule": {
        "interval": 1,
        "frequency": "monthly",
        "start_date": "2026-10-01",
        "day_of_month": 1
      },
      "send_email": false,
      "next_issue_date": "2027-01-01",
      "upcoming_dates": [
        "2027-01-01",
        "2027-02-01",
        "2027-03-01",
        "2027-04-01",
        "2027-05-01"
      ],
      "issued_count": 3,
      "last_issued_date": "2026-12-01",
      "created_at": "2026-12-03T06:53:07.175Z",
      "updated_at": "2026-12-03T06:53:07.314Z"
    }
  },
  "createNumberingSeries": {
    "request": {
      "doc_type": "sales_invoice",
      "name": "Invoices",
      "mask": "FV{YYYY}{#####}",
      "is_default": true
    },
    "response": {
      "id": 2,
      "doc_type": "sales_invoice",
      "name": "Invoices",
      "mask": "FV{YYYY}{#####}",
      "is_default": true,
      "created_at": "2026-12-03T06:52:59.915Z"
    }
  },
  "listNumberingSeries": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "doc_type": "sales_invoice",
          "name": "Invoices",
          "mask": "INV{YYYY}{#####}",
          "is_default": false,
          "created_at": "2026-12-03T06:52:59.904Z"
        },
        {
          "id": 2,
          "doc_type": "sales_invoice",
          "name": "Invoices",
          "mask": "FV{YYYY}{#####}",
          "is_default": true,
          "created_at": "2026-12-03T06:52:59.915Z"
        }
      ],
      "aggregations": []
    }
  },
  "createVendorCredit": {
    "request": {
      "type": {
        "id": 1,
        "name": "purchase"
      },
      "vendor": {
        "business_name": "Kancelářské potřeby a.s.",
        "vat_no": "CZ45274649",
        "address": {
          "city": "Brno",
          "country": "CZ"
        }
      },
      "currency": "CZK",
      "date_issued": "2026-11-12",
      "vendor_doc_no": "2026-D-0077",
      "credited_doc_id": 2,
      "rsn": "One lamp returned",
      "items": [
        {
          "description": "Desk lamp (returned)",
          "qty": 1,
          "rate": 890,
          "taxes": [
            {
              "tax_code": "S",
              "tax_rate": 21
            }
          ]
        }
      ]
    },
    "response": {
      "id": 3,
      "uid": "6bed5293-7ae3-43b4-ac63-a33fedc723e7",
      "created_at": "2026-12-03T06:53:05.087Z",
      "edited_at": "2026-12-03T06:53:05.087Z",
      "is_locked": false,
      "total_amount": 1076.9,
      "subtotal_amount": 890,
      "rounding_amount": 0,
      "prepaid_amount": 0,
      "amount_paid": 0,
      "amount_due": 1076.9,
      "currency": "CZK",
      "vendor": {
        "business_name": "Kancelářské potřeby a.s.",
        "vat_no": "CZ45274649",
        "address": {
          "city": "Brno",
          "country": "CZ"
        }
      },
      "date_issued": "2026-11-12",
      "date_taxable": null,
      "date_due": null,
      "no": "VC202600001",
      "description": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_fx_rate": 1,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "type": {
        "id": 1,
        "name": "purchase"
      },
      "payment_status": "unpaid",
      "overdue_days": 0,
      "tax_nexus": null,
      "vendor_doc_no": "2026-D-0077",
      "payment_reference": null,
      "bank_account_number": null,
      "contact_id": null,
      "copy_from_id": null,
      "items": [
        {
          "id": 5,
          "description": "Desk lamp (returned)",
          "qty": 1,
          "rate": 890,
          "amount": 890,
          "tax_deduction_ratio": 1,
          "net_deduction_ratio": 1,
          "item": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": null,
              "tax_index": null,
              "tax_rate": 21,
              "tax_amount": 186.9,
              "tax_amount_leg": 186.9,
              "tax_base": 890,
              "tax_base_leg": 890,
              "tax_code": "S",
              "tax_name": null,
              "rate_type": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": null,
          "tax_index": null,
          "tax_rate": 21,
          "tax_amount": 186.9,
          "tax_amount_leg": 186.9,
          "tax_base": 890,
          "tax_base_leg": 890,
          "tax_code": "S",
          "tax_name": null,
          "rate_type": null,
          "tax_category": "S"
        }
      ],
      "rsn": "One lamp returned",
      "credited_doc_id": 2,
      "credited_doc_no": "BILL202600001"
    }
  },
  "allocateVendorCredit": {
    "request": {
      "bill_id": 2,
      "date": "2026-11-12"
    },
    "response": {
      "id": 2,
      "vendor_credit": {
        "id": 3,
        "no": "VC202600001"
      },
      "bill": {
        "id": 2,
        "no": "BILL202600001"
      },
      "amount": 1076.9,
      "currency": "CZK",
      "date": "2026-11-12",
      "created_at": "2026-12-03T06:53:05.254Z",
      "removed_at": null,
      "exchange_difference": null
    }
  },
  "listVendorCreditAllocations": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "vendor_credit": {
            "id": 3,
            "no": "VC202600001"
          },
          "bill": {
            "id": 2,
            "no": "BILL202600001"
          },
          "amount": 100,
          "currency": "CZK",
          "date": "2026-12-03",
          "created_at": "2026-12-03T06:53:05.222Z",
          "removed_at": "2026-12-03T06:53:05.236Z",
          "exchange_difference": null
        },
        {
          "id": 2,
          "vendor_credit": {
            "id": 3,
            "no": "VC202600001"
          },
          "bill": {
            "id": 2,
            "no": "BILL202600001"
          },
          "amount": 1076.9,
          "currency": "CZK",
          "date": "2026-11-12",
          "created_at": "2026-12-03T06:53:05.254Z",
          "removed_at": null,
          "exchange_difference": null
        }
      ],
      "aggregations": []
    }
  },
  "removeVendorCreditAllocation": {
    "response": {
      "id": 1,
      "vendor_credit": {
        "id": 3,
        "no": "VC202600001"
      },
      "bill": {
        "id": 2,
        "no": "BILL202600001"
      },
      "amount": 100,
      "currency": "CZK",
      "date": "2026-12-03",
      "created_at": "2026-12-03T06:53:05.222Z",
      "removed_at": "2026-12-03T06:53:05.236Z",
      "exchange_difference": null
    }
  },
  "listVendorCredits": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 100,
      "next_cursor": null,
      "entities": [
        {
          "id": 3,
          "uid": "6bed5293-7ae3-43b4-ac63-a33fedc723e7",
          "created_at": "2026-12-03T06:53:05.087Z",
          "edited_at": "2026-12-03T06:53:05.087Z",
          "is_locked": false,
          "total_amount": 1076.9,
          "subtotal_amount": 890,
          "rounding_amount": 0,
          "prepaid_amount": 0,
          "amount_paid": 0,
          "amount_due": 1076.9,
          "currency": "CZK",
          "vendor": {
            "vat_no": "CZ45274649",
            "address": {
              "city": "Brno",
              "country": "CZ"
            },
            "business_name": "Kancelářské potřeby a.s."
          },
          "date_issued": "2026-11-12",
          "date_taxable": null,
          "date_due": null,
          "no": "VC202600001",
          "description": null,
          "precision": 2,
          "rate_format": null,
          "taxes_included": false,
          "tax_fx_rate": 1,
          "fx_rate_date": null,
          "fx_rate_source": null,
          "type": {
            "id": 1,
            "name": "purchase"
          },
          "payment_status": "unpaid",
          "overdue_days": 0,
          "tax_nexus": null,
          "vendor_doc_no": "2026-D-0077",
          "payment_reference": null,
          "bank_account_number": null,
          "contact_id": null,
          "copy_from_id": null,
          "items": [
            {
              "id": 5,
              "description": "Desk lamp (returned)",
              "qty": 1,
              "rate": 890,
              "amount": 890,
              "tax_deduction_ratio": 1,
              "net_deduction_ratio": 1,
              "item": null,
              "unit": null,
              "gl_account": null,
              "supply": "goods",
              "taxes": [
                {
                  "id": null,
                  "tax_index": null,
                  "tax_rate": 21,
                  "tax_amount": 186.9,
                  "tax_amount_leg": 186.9,
                  "tax_base": 890,
                  "tax_base_leg": 890,
                  "tax_code": "S",
                  "tax_name": null,
                  "rate_type": null,
                  "tax_category": "S"
                }
              ]
            }
          ],
          "taxes": [
            {
              "id": null,
              "tax_index": null,
              "tax_rate": 21,
              "tax_amount": 186.9,
              "tax_amount_leg": 186.9,
              "tax_base": 890,
              "tax_base_leg": 890,
              "tax_code": "S",
              "tax_name": null,
              "rate_type": null,
              "tax_category": "S"
            }
          ],
          "rsn": "One lamp returned",
          "credited_doc_id": 2,
          "credited_doc_no": "BILL202600001"
        }
      ],
      "aggregations": []
    }
  },
  "getVendorCredit": {
    "response": {
      "id": 3,
      "uid": "6bed5293-7ae3-43b4-ac63-a33fedc723e7",
      "created_at": "2026-12-03T06:53:05.087Z",
      "edited_at": "2026-12-03T06:53:05.087Z",
      "is_locked": false,
      "total_amount": 1076.9,
      "subtotal_amount": 890,
      "rounding_amount": 0,
      "prepaid_amount": 0,
      "amount_paid": 0,
      "amount_due": 1076.9,
      "currency": "CZK",
      "vendor": {
        "vat_no": "CZ45274649",
        "address": {
          "city": "Brno",
          "country": "CZ"
        },
        "business_name": "Kancelářské potřeby a.s."
      },
      "date_issued": "2026-11-12",
      "date_taxable": null,
      "date_due": null,
      "no": "VC202600001",
      "description": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_fx_rate": 1,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "type": {
        "id": 1,
        "name": "purchase"
      },
      "payment_status": "unpaid",
      "overdue_days": 0,
      "tax_nexus": null,
      "vendor_doc_no": "2026-D-0077",
      "payment_reference": null,
      "bank_account_number": null,
      "contact_id": null,
      "copy_from_id": null,
      "items": [
        {
          "id": 5,
          "description": "Desk lamp (returned)",
          "qty": 1,
          "rate": 890,
          "amount": 890,
          "tax_deduction_ratio": 1,
          "net_deduction_ratio": 1,
          "item": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": null,
              "tax_index": null,
              "tax_rate": 21,
              "tax_amount": 186.9,
              "tax_amount_leg": 186.9,
              "tax_base": 890,
              "tax_base_leg": 890,
              "tax_code": "S",
              "tax_name": null,
              "rate_type": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": null,
          "tax_index": null,
          "tax_rate": 21,
          "tax_amount": 186.9,
          "tax_amount_leg": 186.9,
          "tax_base": 890,
          "tax_base_leg": 890,
          "tax_code": "S",
          "tax_name": null,
          "rate_type": null,
          "tax_category": "S"
        }
      ],
      "rsn": "One lamp returned",
      "credited_doc_id": 2,
      "credited_doc_no": "BILL202600001"
    }
  },
  "exportInventoryIn": {
    "response": {
      "total": 0,
      "from": 0,
      "take": 100,
      "entities": [],
      "aggregations": []
    }
  },
  "listBillAllocations": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "vendor_credit": {
            "id": 3,
            "no": "VC202600001"
          },
          "bill": {
            "id": 2,
            "no": "BILL202600001"
          },
          "amount": 100,
          "currency": "CZK",
          "date": "2026-12-03",
          "created_at": "2026-12-03T06:53:05.222Z",
          "removed_at": "2026-12-03T06:53:05.236Z",
          "exchange_difference": null
        },
        {
          "id": 2,
          "vendor_credit": {
            "id": 3,
            "no": "VC202600001"
          },
          "bill": {
            "id": 2,
            "no": "BILL202600001"
          },
          "amount": 1076.9,
          "currency": "CZK",
          "date": "2026-11-12",
          "created_at": "2026-12-03T06:53:05.254Z",
          "removed_at": null,
          "exchange_difference": null
        }
      ],
      "aggregations": []
    }
  },
  "createBill": {
    "request": {
      "type": {
        "id": 1,
        "name": "purchase"
      },
      "vendor": {
        "business_name": "Kancelářské potřeby a.s.",
        "vat_no": "CZ45274649",
        "address": {
          "city": "Brno",
          "country": "CZ"
        }
      },
      "currency": "CZK",
      "date_issued": "2026-11-05",
      "date_due": "2026-11-19",
      "vendor_doc_no": "2026-004512",
      "payment_reference": "2026004512",
      "items": [
        {
          "description": "Printer paper A4, 50 reams",
          "qty": 50,
          "rate": 119,
          "taxes": [
            {
              "tax_code": "S",
              "tax_rate": 21
            }
          ]
        },
        {
          "description": "Desk lamp",
          "qty": 2,
          "rate": 890,
          "taxes": [
            {
              "tax_code": "S",
              "tax_rate": 21
            }
          ],
          "gl_account": {
            "number": "501"
          }
        }
      ]
    },
    "response": {
      "id": 2,
      "uid": "046231ca-c8e5-4e75-9524-46bb773ccba8",
      "created_at": "2026-12-03T06:53:05.052Z",
      "edited_at": "2026-12-03T06:53:05.052Z",
      "is_locked": false,
      "total_amount": 9353.3,
      "subtotal_amount": 7730,
      "rounding_amount": 0,
      "prepaid_amount": 0,
      "amount_paid": 0,
      "amount_due": 9353.3,
      "currency": "CZK",
      "vendor": {
        "business_name": "Kancelářské potřeby a.s.",
        "vat_no": "CZ45274649",
        "address": {
          "city": "Brno",
          "country": "CZ"
        }
      },
      "date_issued": "2026-11-05",
      "date_taxable": null,
      "date_due": "2026-11-19",
      "no": "BILL202600001",
      "description": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_fx_rate": 1,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "type": {
        "id": 1,
        "name": "purchase"
      },
      "payment_status": "unpaid",
      "overdue_days": 14,
      "tax_nexus": null,
      "vendor_doc_no": "2026-004512",
      "payment_reference": "2026004512",
      "bank_account_number": null,
      "contact_id": null,
      "copy_from_id": null,
      "items": [
        {
          "id": 3,
          "description": "Printer paper A4, 50 reams",
          "qty": 50,
          "rate": 119,
          "amount": 5950,
          "tax_deduction_ratio": 1,
          "net_deduction_ratio": 1,
          "item": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": null,
              "tax_index": null,
              "tax_rate": 21,
              "tax_amount": 1249.5,
              "tax_amount_leg": 1249.5,
              "tax_base": 5950,
              "tax_base_leg": 5950,
              "tax_code": "S",
              "tax_name": null,
              "rate_type": null,
              "tax_category": "S"
            }
          ]
        },
        {
          "id": 4,
          "description": "Desk lamp",
          "qty": 2,
          "rate": 890,
          "amount": 1780,
          "tax_deduction_ratio": 1,
          "net_deduction_ratio": 1,
          "item": null,
          "unit": null,
          "gl_account": {
            "number": "501"
          },
          "supply": "goods",
          "taxes": [
            {
              "id": null,
              "tax_index": null,
              "tax_rate": 21,
              "tax_amount": 373.8,
              "tax_amount_leg": 373.8,
              "tax_base": 1780,
              "tax_base_leg": 1780,
              "tax_code": "S",
              "tax_name": null,
              "rate_type": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": null,
          "tax_index": null,
          "tax_rate": 21,
          "tax_amount": 1623.3,
          "tax_amount_leg": 1623.3,
          "tax_base": 7730,
          "tax_base_leg": 7730,
          "tax_code": "S",
          "tax_name": null,
          "rate_type": null,
          "tax_category": "S"
        }
      ],
      "rsn": null,
      "vendor_check": {
        "status": "not_checked",
        "checked_at": "2026-12-03T06:53:05.051Z",
        "unreliable_payer": null,
        "account": null,
        "account_published": null,
        "over_limit": false,
        "reasons": [
          "the register does not know the vendor as a VAT payer"
        ],
        "register_read_at": "2026-12-03T06:53:05.049Z"
      },
      "kind": "standard",
      "payment_order_id": null
    }
  },
  "listBills": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 100,
      "next_cursor": null,
      "entities": [
        {
          "id": 2,
          "uid": "046231ca-c8e5-4e75-9524-46bb773ccba8",
          "created_at": "2026-12-03T06:53:05.052Z",
          "edited_at": "2026-12-03T06:53:05.052Z",
          "is_locked": false,
          "total_amount": 9353.3,
          "subtotal_amount": 7730,
          "rounding_amount": 0,
          "prepaid_amount": 0,
          "amount_paid": 0,
          "amount_due": 9353.3,
          "currency": "CZK",
          "vendor": {
            "vat_no": "CZ45274649",
            "address": {
              "city": "Brno",
              "country": "CZ"
            },
            "business_name": "Kancelářské potřeby a.s."
          },
          "date_issued": "2026-11-05",
          "date_taxable": null,
          "date_due": "2026-11-19",
          "no": "BILL202600001",
          "description": null,
          "precision": 2,
          "rate_format": null,
          "taxes_included": false,
          "tax_fx_rate": 1,
          "fx_rate_date": null,
          "fx_rate_source": null,
          "type": {
            "id": 1,
            "name": "purchase"
          },
          "payment_status": "unpaid",
          "overdue_days": 14,
          "tax_nexus": null,
          "vendor_doc_no": "2026-004512",
          "payment_reference": "2026004512",
          "bank_account_number": null,
          "contact_id": null,
          "copy_from_id": null,
          "items": [
            {
              "id": 3,
              "description": "Printer paper A4, 50 reams",
              "qty": 50,
              "rate": 119,
              "amount": 5950,
              "tax_deduction_ratio": 1,
              "net_deduction_ratio": 1,
              "item": null,
              "unit": null,
              "gl_account": null,
              "supply": "goods",
              "taxes": [
                {
                  "id": null,
                  "tax_index": null,
                  "tax_rate": 21,
                  "tax_amount": 1249.5,
                  "tax_amount_leg": 1249.5,
                  "tax_base": 5950,
                  "tax_base_leg": 5950,
                  "tax_code": "S",
                  "tax_name": null,
                  "rate_type": null,
                  "tax_category": "S"
                }
              ]
            },
            {
              "id": 4,
              "description": "Desk lamp",
              "qty": 2,
              "rate": 890,
              "amount": 1780,
              "tax_deduction_ratio": 1,
              "net_deduction_ratio": 1,
              "item": null,
              "unit": null,
              "gl_account": {
                "number": "501"
              },
              "supply": "goods",
              "taxes": [
                {
                  "id": null,
                  "tax_index": null,
                  "tax_rate": 21,
                  "tax_amount": 373.8,
                  "tax_amount_leg": 373.8,
                  "tax_base": 1780,
                  "tax_base_leg": 1780,
                  "tax_code": "S",
                  "tax_name": null,
                  "rate_type": null,
                  "tax_category": "S"
                }
              ]
            }
          ],
          "taxes": [
            {
              "id": null,
              "tax_index": null,
              "tax_rate": 21,
              "tax_amount": 1623.3,
              "tax_amount_leg": 1623.3,
              "tax_base": 7730,
              "tax_base_leg": 7730,
              "tax_code": "S",
              "tax_name": null,
              "rate_type": null,
              "tax_category": "S"
            }
          ],
          "rsn": null,
          "vendor_check": {
            "status": "not_checked",
            "account": null,
            "reasons": [
              "the register does not know the vendor as a VAT payer"
            ],
            "checked_at": "2026-12-03T06:53:05.051Z",
            "over_limit": false,
            "register_read_at": "2026-12-03T06:53:05.049Z",
            "unreliable_payer": null,
            "account_published": null
          },
          "kind": "standard",
          "payment_order_id": null
        }
      ],
      "aggregations": []
    }
  },
  "getBill": {
    "response": {
      "id": 2,
      "uid": "046231ca-c8e5-4e75-9524-46bb773ccba8",
      "created_at": "2026-12-03T06:53:05.052Z",
      "edited_at": "2026-12-03T06:53:05.052Z",
      "is_locked": false,
      "total_amount": 9353.3,
      "subtotal_amount": 7730,
      "rounding_amount": 0,
      "prepaid_amount": 0,
      "amount_paid": 0,
      "amount_due": 9353.3,
      "currency": "CZK",
      "vendor": {
        "vat_no": "CZ45274649",
        "address": {
          "city": "Brno",
          "country": "CZ"
        },
        "business_name": "Kancelářské potřeby a.s."
      },
      "date_issued": "2026-11-05",
      "date_taxable": null,
      "date_due": "2026-11-19",
      "no": "BILL202600001",
      "description": null,
      "precision": 2,
      "rate_format": null,
      "taxes_included": false,
      "tax_fx_rate": 1,
      "fx_rate_date": null,
      "fx_rate_source": null,
      "type": {
        "id": 1,
        "name": "purchase"
      },
      "payment_status": "unpaid",
      "overdue_days": 14,
      "tax_nexus": null,
      "vendor_doc_no": "2026-004512",
      "payment_reference": "2026004512",
      "bank_account_number": null,
      "contact_id": null,
      "copy_from_id": null,
      "items": [
        {
          "id": 3,
          "description": "Printer paper A4, 50 reams",
          "qty": 50,
          "rate": 119,
          "amount": 5950,
          "tax_deduction_ratio": 1,
          "net_deduction_ratio": 1,
          "item": null,
          "unit": null,
          "gl_account": null,
          "supply": "goods",
          "taxes": [
            {
              "id": null,
              "tax_index": null,
              "tax_rate": 21,
              "tax_amount": 1249.5,
              "tax_amount_leg": 1249.5,
              "tax_base": 5950,
              "tax_base_leg": 5950,
              "tax_code": "S",
              "tax_name": null,
              "rate_type": null,
              "tax_category": "S"
            }
          ]
        },
        {
          "id": 4,
          "description": "Desk lamp",
          "qty": 2,
          "rate": 890,
          "amount": 1780,
          "tax_deduction_ratio": 1,
          "net_deduction_ratio": 1,
          "item": null,
          "unit": null,
          "gl_account": {
            "number": "501"
          },
          "supply": "goods",
          "taxes": [
            {
              "id": null,
              "tax_index": null,
              "tax_rate": 21,
              "tax_amount": 373.8,
              "tax_amount_leg": 373.8,
              "tax_base": 1780,
              "tax_base_leg": 1780,
              "tax_code": "S",
              "tax_name": null,
              "rate_type": null,
              "tax_category": "S"
            }
          ]
        }
      ],
      "taxes": [
        {
          "id": null,
          "tax_index": null,
          "tax_rate": 21,
          "tax_amount": 1623.3,
          "tax_amount_leg": 1623.3,
          "tax_base": 7730,
          "tax_base_leg": 7730,
          "tax_code": "S",
          "tax_name": null,
          "rate_type": null,
          "tax_category": "S"
        }
      ],
      "rsn": null,
      "vendor_check": {
        "status": "not_checked",
        "account": null,
        "reasons": [
          "the register does not know the vendor as a VAT payer"
        ],
        "checked_at": "2026-12-03T06:53:05.051Z",
        "over_limit": false,
        "register_read_at": "2026-12-03T06:53:05.049Z",
        "unreliable_payer": null,
        "account_published": null
      },
      "kind": "standard",
      "payment_order_id": null
    }
  },
  "uploadBillAttachment": {
    "response": {
      "id": 2,
      "document_id": 2,
      "file_name": "shared-mime-info-spec.pdf",
      "content_type": "application/pdf",
      "size": 140429,
      "sha256": "4d9666c46b4d367a12e2922f4f3b114396c377106c57bbc934d03320e6888002",
      "source": "upload",
      "created_at": "2026-12-03T06:53:06.147Z"
    }
  },
  "listBillAttachments": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 2,
          "document_id": 2,
          "file_name": "shared-mime-info-spec.pdf",
          "content_type": "application/pdf",
          "size": 140429,
          "sha256": "4d9666c46b4d367a12e2922f4f3b114396c377106c57bbc934d03320e6888002",
          "source": "upload",
          "created_at": "2026-12-03T06:53:06.147Z"
        }
      ],
      "aggregations": []
    }
  },
  "getBillAttachment": {},
  "deleteBillAttachment": {
    "response": {
      "id": 3,
      "document_id": 2,
      "file_name": "thin-white-stripe.jpg",
      "content_type": "image/jpeg",
      "size": 6525,
      "sha256": "a584e74203bcf974f21133b75129b810b33afd67e16767812e9b2f34a6e9393d",
      "source": "upload",
      "created_at": "2026-12-03T06:53:06.204Z"
    }
  },
  "importBill": {
    "requestText": {
      "mediaType": "application/xml",
      "text": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Invoice xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2\" xmlns:cac=\"urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2\" xmlns:cbc=\"urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2\">\n  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>\n  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>\n  <cbc:ID>FV202600001</cbc:ID>\n  <cbc:IssueDate>2026-11-03</cbc:IssueDate>\n  <cbc:DueDate>2026-11-17</cbc:DueDate>\n  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>\n  <cbc:DocumentCurrencyCode>CZK</cbc:DocumentCurrencyCode>\n  <cbc:BuyerReference>ACME-PO-2026-118</cbc:BuyerReference>\n  <cac:AccountingSupplierParty>\n    <cac:Party>\n      <cbc:EndpointID schemeID=\"9929\">CZ27074358</cbc:EndpointID>\n      <cac:PartyName>\n        <cbc:Name>Novák Consulting s.r.o.</cbc:Name>\n      </cac:PartyName>\n      <cac:PostalAddress>\n        <cbc:StreetName>Václavské náměstí 1</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:PostalAddress>\n      <cac:PartyTaxScheme>\n        <cbc:CompanyID>CZ27074358</cbc:CompanyID>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:PartyTaxScheme>\n      <cac:PartyLegalEntity>\n        <cbc:RegistrationName>Novák Consulting s.r.o.</cbc:RegistrationName>\n        <cbc:CompanyID>27074358</cbc:CompanyID>\n      </cac:PartyLegalEntity>\n    </cac:Party>\n  </cac:AccountingSupplierParty>\n  <cac:AccountingCustomerParty>\n    <cac:Party>\n      <cbc:EndpointID schemeID=\"9929\">CZ12345678</cbc:EndpointID>\n      <cac:PartyName>\n        <cbc:Name>Acme s.r.o.</cbc:Name>\n      </cac:PartyName>\n      <cac:PostalAddress>\n        <cbc:StreetName>Dlouhá 12</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:PostalAddress>\n      <cac:PartyTaxScheme>\n        <cbc:CompanyID>CZ12345678</cbc:CompanyID>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:PartyTaxScheme>\n      <cac:PartyLegalEntity>\n        <cbc:RegistrationName>Acme s.r.o.</cbc:RegistrationName>\n        <cbc:CompanyID>12345678</cbc:CompanyID>\n      </cac:PartyLegalEntity>\n      <cac:Contact>\n        <cbc:ElectronicMail>accounts@acme.example</cbc:ElectronicMail>\n      </cac:Contact>\n    </cac:Party>\n  </cac:AccountingCustomerParty>\n  <cac:Delivery>\n    <cbc:ActualDeliveryDate>2026-11-03</cbc:ActualDeliveryDate>\n    <cac:DeliveryLocation>\n      <cac:Address>\n        <cbc:StreetName>Dlouhá 12</cbc:StreetName>\n        <cbc:CityName>Praha</cbc:CityName>\n        <cbc:PostalZone>110 00</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>CZ</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:Address>\n    </cac:DeliveryLocation>\n  </cac:Delivery>\n  <cac:PaymentMeans>\n    <cbc:PaymentMeansCode name=\"Credit transfer\">30</cbc:PaymentMeansCode>\n    <cbc:PaymentID>202600001</cbc:PaymentID>\n    <cac:PayeeFinancialAccount>\n      <cbc:ID>CZ6520100000002900123456</cbc:ID>\n      <cac:FinancialInstitutionBranch>\n        <cbc:ID>FIOBCZPP</cbc:ID>\n      </cac:FinancialInstitutionBranch>\n    </cac:PayeeFinancialAccount>\n  </cac:PaymentMeans>\n  <cac:TaxTotal>\n    <cbc:TaxAmount currencyID=\"CZK\">3888.00</cbc:TaxAmount>\n    <cac:TaxSubtotal>\n      <cbc:TaxableAmount currencyID=\"CZK\">18000.00</cbc:TaxableAmount>\n      <cbc:TaxAmount currencyID=\"CZK\">3780.00</cbc:TaxAmount>\n      <cac:TaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>21</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:TaxCategory>\n    </cac:TaxSubtotal>\n    <cac:TaxSubtotal>\n      <cbc:TaxableAmount currencyID=\"CZK\">900.00</cbc:TaxableAmount>\n      <cbc:TaxAmount currencyID=\"CZK\">108.00</cbc:TaxAmount>\n      <cac:TaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>12</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:TaxCategory>\n    </cac:TaxSubtotal>\n  </cac:TaxTotal>\n  <cac:LegalMonetaryTotal>\n    <cbc:LineExtensionAmount currencyID=\"CZK\">18900.00</cbc:LineExtensionAmount>\n    <cbc:TaxExclusiveAmount currencyID=\"CZK\">18900.00</cbc:TaxExclusiveAmount>\n    <cbc:TaxInclusiveAmount currencyID=\"CZK\">22788.00</cbc:TaxInclusiveAmount>\n    <cbc:PayableAmount currencyID=\"CZK\">22788.00</cbc:PayableAmount>\n  </cac:LegalMonetaryTotal>\n  <cac:InvoiceLine>\n    <cbc:ID>1</cbc:ID>\n    <cbc:InvoicedQuantity unitCode=\"HUR\">12</cbc:InvoicedQuantity>\n    <cbc:LineExtensionAmount currencyID=\"CZK\">18000.00</cbc:LineExtensionAmount>\n    <cac:Item>\n      <cbc:Name>Consulting hour</cbc:Name>\n      <cac:ClassifiedTaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>21</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:ClassifiedTaxCategory>\n    </cac:Item>\n    <cac:Price>\n      <cbc:PriceAmount currencyID=\"CZK\">1500</cbc:PriceAmount>\n    </cac:Price>\n  </cac:InvoiceLine>\n  <cac:InvoiceLine>\n    <cbc:ID>2</cbc:ID>\n    <cbc:InvoicedQuantity unitCode=\"C62\">2</cbc:InvoicedQuantity>\n    <cbc:LineExtensionAmount currencyID=\"CZK\">900.00</cbc:LineExtensionAmount>\n    <cac:Item>\n      <cbc:Name>Handbook</cbc:Name>\n      <cac:ClassifiedTaxCategory>\n        <cbc:ID>S</cbc:ID>\n        <cbc:Percent>12</cbc:Percent>\n        <cac:TaxScheme>\n          <cbc:ID>VAT</cbc:ID>\n        </cac:TaxScheme>\n      </cac:ClassifiedTaxCategory>\n    </cac:Item>\n    <cac:Price>\n      <cbc:PriceAmount currencyID=\"CZK\">450</cbc:PriceAmount>\n    </cac:Price>\n  </cac:InvoiceLine>\n</Invoice>\n"
    },
    "response": {
      "kind": "bill",
      "bill": {
        "id": 1,
        "uid": "a703f052-3c85-4f55-a54c-fbc9424e352e",
        "created_at": "2026-12-03T06:53:02.340Z",
        "edited_at": "2026-12-03T06:53:02.340Z",
        "is_locked": false,
        "total_amount": 22788,
        "subtotal_amount": 18900,
        "rounding_amount": 0,
        "prepaid_amount": 0,
        "amount_paid": 0,
        "amount_due": 22788,
        "currency": "CZK",
        "vendor": {
          "id": 3,
          "business_name": "Novák Consulting s.r.o.",
          "display_name": null,
          "reg_no": "27074358",
          "vat_no": "CZ27074358",
          "tax_no": null,
          "address": {
            "address1": "Václavské náměstí 1",
            "address2": null,
            "postal_code": "110 00",
            "city": "Praha",
            "country": "CZ"
          },
          "email": null,
          "preferred_locale": null,
          "phone": null,
          "peppol_id": "9929:CZ27074358"
        },
        "date_issued": "2026-11-03",
        "date_taxable": null,
        "date_due": "2026-11-17",
        "no": "BILL202600001",
        "description": null,
        "precision": 2,
        "rate_format": null,
        "taxes_included": false,
        "tax_fx_rate": 1,
        "fx_rate_date": null,
        "fx_rate_source": null,
        "type": {
          "id": 1,
          "name": "purchase"
        },
        "payment_status": "unpaid",
        "overdue_days": 16,
        "tax_nexus": null,
        "vendor_doc_no": "FV202600001",
        "payment_reference": "202600001",
        "bank_account_number": "CZ6520100000002900123456",
        "contact_id": 3,
        "copy_from_id": null,
        "items": [
          {
            "id": 1,
            "description": "Consulting hour",
            "qty": 12,
            "rate": 1500,
            "amount": 18000,
            "tax_deduction_ratio": 1,
            "net_deduction_ratio": 1,
            "item": null,
            "unit": null,
            "gl_account": null,
            "supply": "goods",
            "taxes": [
              {
                "id": null,
                "tax_index": null,
                "tax_rate": 21,
                "tax_amount": 3780,
                "tax_amount_leg": 3780,
                "tax_base": 18000,
                "tax_base_leg": 18000,
                "tax_code": "S",
                "tax_name": null,
                "rate_type": null,
                "tax_category": "S"
              }
            ]
          },
          {
            "id": 2,
            "description": "Handbook",
            "qty": 2,
            "rate": 450,
            "amount": 900,
            "tax_deduction_ratio": 1,
            "net_deduction_ratio": 1,
            "item": null,
            "unit": null,
            "gl_account": null,
            "supply": "goods",
            "taxes": [
              {
                "id": null,
                "tax_index": null,
                "tax_rate": 12,
                "tax_amount": 108,
                "tax_amount_leg": 108,
                "tax_base": 900,
                "tax_base_leg": 900,
                "tax_code": "S",
                "tax_name": null,
                "rate_type": null,
                "tax_category": "S"
              }
            ]
          }
        ],
        "taxes": [
          {
            "id": null,
            "tax_index": null,
            "tax_rate": 21,
            "tax_amount": 3780,
            "tax_amount_leg": 3780,
            "tax_base": 18000,
            "tax_base_leg": 18000,
            "tax_code": "S",
            "tax_name": null,
            "rate_type": null,
            "tax_category": "S"
          },
          {
            "id": null,
            "tax_index": null,
            "tax_rate": 12,
            "tax_amount": 108,
            "tax_amount_leg": 108,
            "tax_base": 900,
            "tax_base_leg": 900,
            "tax_code": "S",
            "tax_name": null,
            "rate_type": null,
            "tax_category": "S"
          }
        ],
        "rsn": null,
        "vendor_check": {
          "status": "not_checked",
          "checked_at": "2026-12-03T06:53:02.336Z",
          "unreliable_payer": null,
          "account": "CZ6520100000002900123456",
          "account_published": null,
          "over_limit": false,
          "reasons": [
            "the register does not know the vendor as a VAT payer"
          ],
          "register_read_at": "2026-12-03T06:53:02.335Z"
        },
        "kind": "standard",
        "payment_order_id": null
      },
      "vendor_credit": null
    }
  },
  "getAgedPayables": {
    "response": {
      "as_of": "2026-11-30",
      "totals": [
        {
          "currency": "CZK",
          "current": 8954,
          "days_1_30": 8276.4,
          "days_31_60": 0,
          "days_61_90": 0,
          "days_over_90": 0,
          "total": 17230.4
        }
      ],
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "contact": {
            "id": null,
            "name": "Kancelářské potřeby a.s."
          },
          "currency": "CZK",
          "documents": 2,
          "current": 8954,
          "days_1_30": 8276.4,
          "days_31_60": 0,
          "days_61_90": 0,
          "days_over_90": 0,
          "total": 17230.4
        }
      ],
      "aggregations": []
    }
  },
  "recordBankTransaction": {
    "request": {
      "account_number": "2900123456/2010",
      "amount": 19158,
      "currency": "CZK",
      "date_transaction": "2026-11-16",
      "payment_reference": "202600001",
      "partner_account_number": "19-2000145399/0800",
      "partner_name": "Acme s.r.o.",
      "description": "Payment of FV202600001",
      "paid_record": {
        "type": "sales_invoice",
        "id": 1
      }
    },
    "response": {
      "id": 3,
      "account_number": "2900123456/2010",
      "statement_id": null,
      "order": null,
      "description": "Payment of FV202600001",
      "amount": 19158,
      "amount_original": null,
      "payment_amount": null,
      "date_transaction": "2026-11-16",
      "date_accounting": null,
      "currency": "CZK",
      "payment_reference": "202600001",
      "partner_account_number": "19-2000145399/0800",
      "partner_name": "Acme s.r.o.",
      "raw_message": null,
      "contact": null,
      "paid_record": {
        "id": 1,
        "type": "sales_invoice",
        "no": "FV202600001",
        "contact": {
          "id": 2001,
          "business_name": "Acme s.r.o."
        }
      },
      "gl_account": null,
      "match_status": "matched",
      "matched_document": {
        "type": "sales_invoice",
        "id": 1,
        "no": "FV202600001",
        "amount": 19158,
        "currency": "CZK"
      },
      "legal_currency": "CZK",
      "fx_rate": 1,
      "currency_coef": 1,
      "fx_rate_source": "legal",
      "fx_rate_date": null,
      "amount_leg": 19158,
      "settlement_amount_leg": null,
      "bank_reference": null,
      "version": 1
    }
  },
  "listBankTransactions": {
    "response": {
      "total": 3,
      "total_exact": true,
      "from": 0,
      "take": 100,
      "next_cursor": null,
      "entities": [
        {
          "id": 1,
          "account_number": "CZ9220100000002701000002",
          "statement_id": 1,
          "order": 1,
          "description": "Invoice 2026001",
          "amount": 4840,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-04",
          "date_accounting": "2026-11-04",
          "currency": "CZK",
          "payment_reference": "2026001",
          "partner_account_number": "2900233333/2010",
          "partner_name": "Acme s.r.o.",
          "raw_message": "VS 2026001 | Invoice 2026001 | Invoice 2026001 | Fio: Bezhotovostní příjem",
          "contact": null,
          "paid_record": null,
          "gl_account": null,
          "match_status": "unmatched",
          "matched_document": null,
          "legal_currency": "CZK",
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null,
          "amount_leg": 4840,
          "settlement_amount_leg": null,
          "bank_reference": "26110401",
          "version": 1
        },
        {
          "id": 2,
          "account_number": null,
          "statement_id": null,
          "order": null,
          "description": null,
          "amount": 48400,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-06",
          "date_accounting": null,
          "currency": "CZK",
          "payment_reference": null,
          "partner_account_number": null,
          "partner_name": null,
          "raw_message": null,
          "contact": null,
          "paid_record": {
            "id": 3,
            "no": "PF26900001",
            "type": "sales_proforma",
            "contact": {
              "id": 2001,
              "business_name": "Acme s.r.o."
            }
          },
          "gl_account": null,
          "match_status": "matched",
          "matched_document": {
            "type": "sales_proforma",
            "id": 3,
            "no": "PF26900001",
            "amount": 48400,
            "currency": "CZK"
          },
          "legal_currency": "CZK",
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null,
          "amount_leg": 48400,
          "settlement_amount_leg": null,
          "bank_reference": null,
          "version": 1
        },
        {
          "id": 3,
          "account_number": "2900123456/2010",
          "statement_id": null,
          "order": null,
          "description": "Payment of FV202600001",
          "amount": 19158,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-16",
          "date_accounting": null,
          "currency": "CZK",
          "payment_reference": "202600001",
          "partner_account_number": "19-2000145399/0800",
          "partner_name": "Acme s.r.o.",
          "raw_message": null,
          "contact": null,
          "paid_record": {
            "id": 1,
            "no": "FV202600001",
            "type": "sales_invoice",
            "contact": {
              "id": 2001,
              "business_name": "Acme s.r.o."
            }
          },
          "gl_account": null,
          "match_status": "matched",
          "matched_document": {
            "type": "sales_invoice",
            "id": 1,
            "no": "FV202600001",
            "amount": 19158,
            "currency": "CZK"
          },
          "legal_currency": "CZK",
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null,
          "amount_leg": 19158,
          "settlement_amount_leg": null,
          "bank_reference": null,
          "version": 1
        }
      ],
      "aggregations": []
    }
  },
  "matchBankTransaction": {
    "request": {
      "document": {
        "type": "sales_invoice",
        "id": 10
      }
    },
    "response": {
      "id": 6,
      "account_number": "CZ6508000000192000145399",
      "statement_id": 2,
      "order": 3,
      "description": "Support",
      "amount": 300,
      "amount_original": null,
      "payment_amount": null,
      "date_transaction": "2026-11-27",
      "date_accounting": "2026-11-27",
      "currency": "CZK",
      "payment_reference": null,
      "partner_account_number": null,
      "partner_name": "Acme s.r.o.",
      "raw_message": "Support",
      "contact": null,
      "paid_record": {
        "type": "sales_invoice",
        "id": 10,
        "no": "FV202600004",
        "contact": {
          "id": 2001,
          "business_name": "Acme s.r.o."
        }
      },
      "gl_account": null,
      "match_status": "matched",
      "matched_document": {
        "type": "sales_invoice",
        "id": 10,
        "no": "FV202600004",
        "amount": 300,
        "currency": "CZK"
      },
      "legal_currency": "CZK",
      "fx_rate": 1,
      "currency_coef": 1,
      "fx_rate_source": "legal",
      "fx_rate_date": null,
      "amount_leg": 300,
      "settlement_amount_leg": null,
      "bank_reference": "REF-11-3",
      "version": 4
    }
  },
  "unmatchBankTransaction": {
    "response": {
      "id": 6,
      "account_number": "CZ6508000000192000145399",
      "statement_id": 2,
      "order": 3,
      "description": "Support",
      "amount": 300,
      "amount_original": null,
      "payment_amount": null,
      "date_transaction": "2026-11-27",
      "date_accounting": "2026-11-27",
      "currency": "CZK",
      "payment_reference": null,
      "partner_account_number": null,
      "partner_name": "Acme s.r.o.",
      "raw_message": "Support",
      "contact": null,
      "paid_record": null,
      "gl_account": null,
      "match_status": "unmatched",
      "matched_document": null,
      "legal_currency": "CZK",
      "fx_rate": 1,
      "currency_coef": 1,
      "fx_rate_source": "legal",
      "fx_rate_date": null,
      "amount_leg": 300,
      "settlement_amount_leg": null,
      "bank_reference": "REF-11-3",
      "version": 3
    }
  },
  "replacePayout": {
    "request": {
      "currency": "CZK",
      "date_issued": "2026-11-20",
      "psp_object_id": "po_1QxY7fK2eZvKYlo2",
      "description": "Card payments 14–19 November",
      "lines": [
        {
          "description": "Card payment",
          "amount": 1210,
          "date_transaction": "2026-11-14"
        },
        {
          "description": "Card payment",
          "amount": 605,
          "date_transaction": "2026-11-18"
        },
        {
          "description": "Processing fee",
          "amount": -41.2,
          "gl_account": {
            "number": "568"
          }
        }
      ]
    },
    "response": {
      "id": 1,
      "uid": "9b9ada87-0b8d-4675-8e34-7650b45e138d",
      "transaction_type": null,
      "created_at": "2026-12-03T06:53:05.524Z",
      "edited_at": "2026-12-03T06:53:05.574Z",
      "is_locked": false,
      "currency": "CZK",
      "date_issued": "2026-11-20",
      "description": "Card payments 14–19 November",
      "total_amount": 1773.8,
      "psp_object_id": "po_1QxY7fK2eZvKYlo2",
      "no": null,
      "copy_from_id": null,
      "version": 2,
      "legal_currency": "CZK",
      "fx_rate": 1,
      "currency_coef": 1,
      "total_amount_leg": 1773.8,
      "lines": [
        {
          "id": 4,
          "description": "Card payment",
          "amount": 1210,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-14",
          "date_accounting": null,
          "currency": null,
          "order": 1,
          "paid_record": null,
          "gl_account": null,
          "match_status": "none",
          "matched_document": null,
          "amount_leg": 1210,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        },
        {
          "id": 5,
          "description": "Card payment",
          "amount": 605,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-18",
          "date_accounting": null,
          "currency": null,
          "order": 2,
          "paid_record": null,
          "gl_account": null,
          "match_status": "none",
          "matched_document": null,
          "amount_leg": 605,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        },
        {
          "id": 6,
          "description": "Processing fee",
          "amount": -41.2,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": null,
          "date_accounting": null,
          "currency": null,
          "order": 3,
          "paid_record": null,
          "gl_account": {
            "number": "568"
          },
          "match_status": "none",
          "matched_document": null,
          "amount_leg": -41.2,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        }
      ]
    }
  },
  "listPayouts": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 100,
      "next_cursor": null,
      "entities": [
        {
          "id": 1,
          "uid": "9b9ada87-0b8d-4675-8e34-7650b45e138d",
          "transaction_type": null,
          "created_at": "2026-12-03T06:53:05.524Z",
          "edited_at": "2026-12-03T06:53:05.574Z",
          "is_locked": false,
          "currency": "CZK",
          "date_issued": "2026-11-20",
          "description": "Card payments 14–19 November",
          "total_amount": 1773.8,
          "psp_object_id": "po_1QxY7fK2eZvKYlo2",
          "no": null,
          "copy_from_id": null,
          "version": 2,
          "legal_currency": "CZK",
          "fx_rate": 1,
          "currency_coef": 1,
          "total_amount_leg": 1773.8,
          "lines": [
            {
              "id": 4,
              "description": "Card payment",
              "amount": 1210,
              "amount_original": null,
              "payment_amount": null,
              "date_transaction": "2026-11-14",
              "date_accounting": null,
              "currency": null,
              "order": 1,
              "paid_record": null,
              "gl_account": null,
              "match_status": "none",
              "matched_document": null,
              "amount_leg": 1210,
              "settlement_amount_leg": null,
              "fx_rate": 1,
              "currency_coef": 1,
              "fx_rate_source": "legal",
              "fx_rate_date": null
            },
            {
              "id": 5,
              "description": "Card payment",
              "amount": 605,
              "amount_original": null,
              "payment_amount": null,
              "date_transaction": "2026-11-18",
              "date_accounting": null,
              "currency": null,
              "order": 2,
              "paid_record": null,
              "gl_account": null,
              "match_status": "none",
              "matched_document": null,
              "amount_leg": 605,
              "settlement_amount_leg": null,
              "fx_rate": 1,
              "currency_coef": 1,
              "fx_rate_source": "legal",
              "fx_rate_date": null
            },
            {
              "id": 6,
              "description": "Processing fee",
              "amount": -41.2,
              "amount_original": null,
              "payment_amount": null,
              "date_transaction": null,
              "date_accounting": null,
              "currency": null,
              "order": 3,
              "paid_record": null,
              "gl_account": {
                "number": "568"
              },
              "match_status": "none",
              "matched_document": null,
              "amount_leg": -41.2,
              "settlement_amount_leg": null,
              "fx_rate": 1,
              "currency_coef": 1,
              "fx_rate_source": "legal",
              "fx_rate_date": null
            }
          ]
        }
      ],
      "aggregations": []
    }
  },
  "createPayout": {
    "request": {
      "currency": "CZK",
      "date_issued": "2026-11-20",
      "psp_object_id": "po_1QxY7fK2eZvKYlo2",
      "description": "Card payments 14–19 November",
      "lines": [
        {
          "description": "Card payment",
          "amount": 1210,
          "date_transaction": "2026-11-14"
        },
        {
          "description": "Card payment",
          "amount": 605,
          "date_transaction": "2026-11-18"
        },
        {
          "description": "Processing fee",
          "amount": -38.5,
          "gl_account": {
            "number": "568"
          }
        }
      ]
    },
    "response": {
      "id": 1,
      "uid": "9b9ada87-0b8d-4675-8e34-7650b45e138d",
      "transaction_type": null,
      "created_at": "2026-12-03T06:53:05.524Z",
      "edited_at": "2026-12-03T06:53:05.524Z",
      "is_locked": false,
      "currency": "CZK",
      "date_issued": "2026-11-20",
      "description": "Card payments 14–19 November",
      "total_amount": 1776.5,
      "psp_object_id": "po_1QxY7fK2eZvKYlo2",
      "no": null,
      "copy_from_id": null,
      "version": 1,
      "legal_currency": "CZK",
      "fx_rate": 1,
      "currency_coef": 1,
      "total_amount_leg": 1776.5,
      "lines": [
        {
          "id": 1,
          "description": "Card payment",
          "amount": 1210,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-14",
          "date_accounting": null,
          "currency": null,
          "order": 1,
          "paid_record": null,
          "gl_account": null,
          "match_status": "none",
          "matched_document": null,
          "amount_leg": 1210,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        },
        {
          "id": 2,
          "description": "Card payment",
          "amount": 605,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-18",
          "date_accounting": null,
          "currency": null,
          "order": 2,
          "paid_record": null,
          "gl_account": null,
          "match_status": "none",
          "matched_document": null,
          "amount_leg": 605,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        },
        {
          "id": 3,
          "description": "Processing fee",
          "amount": -38.5,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": null,
          "date_accounting": null,
          "currency": null,
          "order": 3,
          "paid_record": null,
          "gl_account": {
            "number": "568"
          },
          "match_status": "none",
          "matched_document": null,
          "amount_leg": -38.5,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        }
      ]
    }
  },
  "getPayout": {
    "response": {
      "id": 1,
      "uid": "9b9ada87-0b8d-4675-8e34-7650b45e138d",
      "transaction_type": null,
      "created_at": "2026-12-03T06:53:05.524Z",
      "edited_at": "2026-12-03T06:53:05.524Z",
      "is_locked": false,
      "currency": "CZK",
      "date_issued": "2026-11-20",
      "description": "Card payments 14–19 November",
      "total_amount": 1776.5,
      "psp_object_id": "po_1QxY7fK2eZvKYlo2",
      "no": null,
      "copy_from_id": null,
      "version": 1,
      "legal_currency": "CZK",
      "fx_rate": 1,
      "currency_coef": 1,
      "total_amount_leg": 1776.5,
      "lines": [
        {
          "id": 1,
          "description": "Card payment",
          "amount": 1210,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-14",
          "date_accounting": null,
          "currency": null,
          "order": 1,
          "paid_record": null,
          "gl_account": null,
          "match_status": "none",
          "matched_document": null,
          "amount_leg": 1210,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        },
        {
          "id": 2,
          "description": "Card payment",
          "amount": 605,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": "2026-11-18",
          "date_accounting": null,
          "currency": null,
          "order": 2,
          "paid_record": null,
          "gl_account": null,
          "match_status": "none",
          "matched_document": null,
          "amount_leg": 605,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        },
        {
          "id": 3,
          "description": "Processing fee",
          "amount": -38.5,
          "amount_original": null,
          "payment_amount": null,
          "date_transaction": null,
          "date_accounting": null,
          "currency": null,
          "order": 3,
          "paid_record": null,
          "gl_account": {
            "number": "568"
          },
          "match_status": "none",
          "matched_document": null,
          "amount_leg": -38.5,
          "settlement_amount_leg": null,
          "fx_rate": 1,
          "currency_coef": 1,
          "fx_rate_source": "legal",
          "fx_rate_date": null
        }
      ]
    }
  },
  "importBankStatement": {
    "requestText": {
      "mediaType": "application/xml",
      "text": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\"><BkToCstmrStmt><GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-11-21T06:00:00</CreDtTm></GrpHdr><Stmt><Id>CZ6508000000192000145399-11</Id><ElctrncSeqNb>11</ElctrncSeqNb><CreDtTm>2026-11-30T23:00:00</CreDtTm><FrToDt><FrDtTm>2026-11-01T00:00:00</FrDtTm><ToDtTm>2026-11-30T23:59:59</ToDtTm></FrToDt><Acct><Id><IBAN>CZ6508000000192000145399</IBAN></Id><Ccy>CZK</Ccy></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy=\"CZK\">25000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-01</Dt></Dt></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy=\"CZK\">27675.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-30</Dt></Dt></Bal><Ntry><NtryRef>1</NtryRef><Amt Ccy=\"CZK\">2420.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-24</Dt></BookgDt><ValDt><Dt>2026-11-24</Dt></ValDt><AcctSvcrRef>REF-11-1</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>DMCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>VS202600003</EndToEndId></Refs><RltdPties><Dbtr><Nm>Acme s.r.o.</Nm></Dbtr><DbtrAcct><Id><IBAN>CZ7908000000002000145399</IBAN></Id></DbtrAcct></RltdPties><RmtInf><Ustrd>Invoice FV202600003</Ustrd><Strd><CdtrRefInf><Ref>202600003</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls></Ntry><Ntry><NtryRef>2</NtryRef><Amt Ccy=\"CZK\">45.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-30</Dt></BookgDt><ValDt><Dt>2026-11-30</Dt></ValDt><AcctSvcrRef>REF-11-2</AcctSvcrRef><BkTxCd><Domn><Cd>ACMT</Cd><Fmly><Cd>MDOP</Cd><SubFmlyCd>CHRG</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs><RmtInf><Ustrd>Account fee November</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry><Ntry><NtryRef>3</NtryRef><Amt Ccy=\"CZK\">300.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-27</Dt></BookgDt><ValDt><Dt>2026-11-27</Dt></ValDt><AcctSvcrRef>REF-11-3</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>DMCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs><RltdPties><Dbtr><Nm>Acme s.r.o.</Nm></Dbtr></RltdPties><RmtInf><Ustrd>Support</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>\n"
    },
    "response": {
      "statements": [
        {
          "id": 2,
          "format": "camt053",
          "account": "CZ6508000000192000145399",
          "statement_no": "11",
          "currency": "CZK",
          "opening_balance": 25000,
          "closing_balance": 27675,
          "date_from": "2026-11-01",
          "date_to": "2026-11-30",
          "created_at": "2026-12-03T06:53:05.331Z",
          "entries": [
            {
              "order": 1,
              "status": "matched",
              "matched_by": "variable_symbol",
              "amount": 2420,
              "variable_symbol": "202600003",
              "bank_reference": "REF-11-1",
              "transaction": {
                "id": 4,
                "account_number": "CZ6508000000192000145399",
                "statement_id": 2,
                "order": 1,
                "description": "Invoice FV202600003",
                "amount": 2420,
                "amount_original": null,
                "payment_amount": null,
                "date_transaction": "2026-11-24",
                "date_accounting": "2026-11-24",
                "currency": "CZK",
                "payment_reference": "202600003",
                "partner_account_number": "CZ7908000000002000145399",
                "partner_name": "Acme s.r.o.",
                "raw_message": "VS 202600003 | Invoice FV202600003",
                "contact": null,
                "paid_record": {
                  "id": 9,
                  "no": "FV202600003",
                  "type": "sales_invoice",
                  "contact": {
                    "id": 2001,
                    "business_name": "Acme s.r.o."
                  }
                },
                "gl_account": null,
                "match_status": "matched",
                "matched_document": {
                  "type": "sales_invoice",
                  "id": 9,
                  "no": "FV202600003",
                  "amount": 2420,
                  "currency": "CZK"
                },
                "legal_currency": "CZK",
                "fx_rate": 1,
                "currency_coef": 1,
                "fx_rate_source": "legal",
                "fx_rate_date": null,
                "amount_leg": 2420,
                "settlement_amount_leg": null,
                "bank_reference": "REF-11-1",
                "version": 1
              }
            },
            {
              "order": 2,
              "status": "fee",
              "matched_by": null,
              "amount": -45,
              "variable_symbol": null,
              "bank_reference": "REF-11-2",
              "transaction": {
                "id": 5,
                "account_number": "CZ6508000000192000145399",
                "statement_id": 2,
                "order": 2,
                "description": "Account fee November",
                "amount": -45,
                "amount_original": null,
                "payment_amount": null,
                "date_transaction": "2026-11-30",
                "date_accounting": "2026-11-30",
                "currency": "CZK",
                "payment_reference": null,
                "partner_account_number": null,
                "partner_name": null,
                "raw_message": "Account fee November",
                "contact": null,
                "paid_record": null,
                "gl_account": {
                  "name": "Bank fees",
                  "number": "568"
                },
                "match_status": "none",
                "matched_document": null,
                "legal_currency": "CZK",
                "fx_rate": 1,
                "currency_coef": 1,
                "fx_rate_source": "legal",
                "fx_rate_date": null,
                "amount_leg": -45,
                "settlement_amount_leg": null,
                "bank_reference": "REF-11-2",
                "version": 1
              }
            },
            {
              "order": 3,
              "status": "unmatched",
              "matched_by": null,
              "amount": 300,
              "variable_symbol": null,
              "bank_reference": "REF-11-3",
              "transaction": {
                "id": 6,
                "account_number": "CZ6508000000192000145399",
                "statement_id": 2,
                "order": 3,
                "description": "Support",
                "amount": 300,
                "amount_original": null,
                "payment_amount": null,
                "date_transaction": "2026-11-27",
                "date_accounting": "2026-11-27",
                "currency": "CZK",
                "payment_reference": null,
                "partner_account_number": null,
                "partner_name": "Acme s.r.o.",
                "raw_message": "Support",
                "contact": null,
                "paid_record": null,
                "gl_account": null,
                "match_status": "unmatched",
                "matched_document": null,
                "legal_currency": "CZK",
                "fx_rate": 1,
                "currency_coef": 1,
                "fx_rate_source": "legal",
                "fx_rate_date": null,
                "amount_leg": 300,
                "settlement_amount_leg": null,
                "bank_reference": "REF-11-3",
                "version": 1
              }
            }
          ]
        }
      ]
    }
  },
  "listBankStatements": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "format": "fio",
          "account": "CZ9220100000002701000002",
          "statement_no": "FIO-2026-12-03-26110401",
          "currency": "CZK",
          "opening_balance": 1000,
          "closing_balance": 5840,
          "date_from": "2026-11-01",
          "date_to": "2026-12-03",
          "created_at": "2026-12-03T06:52:59.610Z"
        },
        {
          "id": 2,
          "format": "camt053",
          "account": "CZ6508000000192000145399",
          "statement_no": "11",
          "currency": "CZK",
          "opening_balance": 25000,
          "closing_balance": 27675,
          "date_from": "2026-11-01",
          "date_to": "2026-11-30",
          "created_at": "2026-12-03T06:53:05.331Z"
        }
      ],
      "aggregations": []
    }
  },
  "getBankStatement": {
    "response": {
      "id": 2,
      "format": "camt053",
      "account": "CZ6508000000192000145399",
      "statement_no": "11",
      "currency": "CZK",
      "opening_balance": 25000,
      "closing_balance": 27675,
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "created_at": "2026-12-03T06:53:05.331Z",
      "entries": [
        {
          "order": 1,
          "status": "matched",
          "matched_by": "variable_symbol",
          "amount": 2420,
          "variable_symbol": "202600003",
          "bank_reference": "REF-11-1",
          "transaction": {
            "id": 4,
            "account_number": "CZ6508000000192000145399",
            "statement_id": 2,
            "order": 1,
            "description": "Invoice FV202600003",
            "amount": 2420,
            "amount_original": null,
            "payment_amount": null,
            "date_transaction": "2026-11-24",
            "date_accounting": "2026-11-24",
            "currency": "CZK",
            "payment_reference": "202600003",
            "partner_account_number": "CZ7908000000002000145399",
            "partner_name": "Acme s.r.o.",
            "raw_message": "VS 202600003 | Invoice FV202600003",
            "contact": null,
            "paid_record": {
              "id": 9,
              "no": "FV202600003",
              "type": "sales_invoice",
              "contact": {
                "id": 2001,
                "business_name": "Acme s.r.o."
              }
            },
            "gl_account": null,
            "match_status": "matched",
            "matched_document": {
              "type": "sales_invoice",
              "id": 9,
              "no": "FV202600003",
              "amount": 2420,
              "currency": "CZK"
            },
            "legal_currency": "CZK",
            "fx_rate": 1,
            "currency_coef": 1,
            "fx_rate_source": "legal",
            "fx_rate_date": null,
            "amount_leg": 2420,
            "settlement_amount_leg": null,
            "bank_reference": "REF-11-1",
            "version": 1
          }
        },
        {
          "order": 2,
          "status": "fee",
          "matched_by": null,
          "amount": -45,
          "variable_symbol": null,
          "bank_reference": "REF-11-2",
          "transaction": {
            "id": 5,
            "account_number": "CZ6508000000192000145399",
            "statement_id": 2,
            "order": 2,
            "description": "Account fee November",
            "amount": -45,
            "amount_original": null,
            "payment_amount": null,
            "date_transaction": "2026-11-30",
            "date_accounting": "2026-11-30",
            "currency": "CZK",
            "payment_reference": null,
            "partner_account_number": null,
            "partner_name": null,
            "raw_message": "Account fee November",
            "contact": null,
            "paid_record": null,
            "gl_account": {
              "name": "Bank fees",
              "number": "568"
            },
            "match_status": "none",
            "matched_document": null,
            "legal_currency": "CZK",
            "fx_rate": 1,
            "currency_coef": 1,
            "fx_rate_source": "legal",
            "fx_rate_date": null,
            "amount_leg": -45,
            "settlement_amount_leg": null,
            "bank_reference": "REF-11-2",
            "version": 1
          }
        },
        {
          "order": 3,
          "status": "unmatched",
          "matched_by": null,
          "amount": 300,
          "variable_symbol": null,
          "bank_reference": "REF-11-3",
          "transaction": {
            "id": 6,
            "account_number": "CZ6508000000192000145399",
            "statement_id": 2,
            "order": 3,
            "description": "Support",
            "amount": 300,
            "amount_original": null,
            "payment_amount": null,
            "date_transaction": "2026-11-27",
            "date_accounting": "2026-11-27",
            "currency": "CZK",
            "payment_reference": null,
            "partner_account_number": null,
            "partner_name": "Acme s.r.o.",
            "raw_message": "Support",
            "contact": null,
            "paid_record": null,
            "gl_account": null,
            "match_status": "unmatched",
            "matched_document": null,
            "legal_currency": "CZK",
            "fx_rate": 1,
            "currency_coef": 1,
            "fx_rate_source": "legal",
            "fx_rate_date": null,
            "amount_leg": 300,
            "settlement_amount_leg": null,
            "bank_reference": "REF-11-3",
            "version": 1
          }
        }
      ]
    }
  },
  "createPaymentOrder": {
    "request": {
      "bill_ids": [
        4
      ],
      "execution_date": "2026-12-04",
      "from_account": {
        "account_number": "2701000010/2010",
        "bic": "FIOBCZPP"
      },
      "constant_symbol": "0308"
    },
    "response": {
      "id": 1,
      "status": "open",
      "version": 1,
      "currency": "CZK",
      "execution_date": "2026-12-04",
      "total_amount": 8954,
      "from_account": {
        "bic": "FIOBCZPP",
        "iban": "CZ7020100000002701000010",
        "account_number": "2701000010/2010"
      },
      "message_id": "LL-2-PO-1",
      "items": [
        {
          "bill_id": 4,
          "bill_no": "BILL202600002",
          "vendor_doc_no": "2026-004790",
          "vendor_name": "Kancelářské potřeby a.s.",
          "amount": 8954,
          "account": {
            "bic": null,
            "iban": "CZ9220100000002701000002",
            "account_number": "2701000002/2010"
          },
          "variable_symbol": "2026004790",
          "constant_symbol": "0308",
          "specific_symbol": null,
          "message": "2026-004790",
          "end_to_end_id": "/VS2026004790/KS0308",
          "risk_accepted": false,
          "status": "ordered",
          "amount_paid": 0
        }
      ],
      "created_at": "2026-12-03T06:53:05.140Z",
      "updated_at": "2026-12-03T06:53:05.140Z",
      "sent_at": null,
      "completed_at": null,
      "cancelled_at": null
    }
  },
  "listPaymentOrders": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 2,
          "status": "sent",
          "version": 2,
          "currency": "CZK",
          "execution_date": "2026-12-04",
          "total_amount": 8954,
          "from_account": {
            "bic": "FIOBCZPP",
            "iban": "CZ7020100000002701000010",
            "account_number": "2701000010/2010"
          },
          "message_id": "LL-2-PO-2",
          "items": [
            {
              "bill_id": 4,
              "bill_no": "BILL202600002",
              "vendor_doc_no": "2026-004790",
              "vendor_name": "Kancelářské potřeby a.s.",
              "amount": 8954,
              "account": {
                "bic": null,
                "iban": "CZ9220100000002701000002",
                "account_number": "2701000002/2010"
              },
              "variable_symbol": "2026004790",
              "constant_symbol": "0308",
              "specific_symbol": null,
              "message": "2026-004790",
              "end_to_end_id": "/VS2026004790/KS0308",
              "risk_accepted": false,
              "status": "ordered",
              "amount_paid": 0
            }
          ],
          "created_at": "2026-12-03T06:53:05.174Z",
          "updated_at": "2026-12-03T06:53:05.203Z",
          "sent_at": "2026-12-03T06:53:05.203Z",
          "completed_at": null,
          "cancelled_at": null
        }
      ],
      "aggregations": []
    }
  },
  "getPaymentOrder": {
    "response": {
      "id": 2,
      "status": "open",
      "version": 1,
      "currency": "CZK",
      "execution_date": "2026-12-04",
      "total_amount": 8954,
      "from_account": {
        "bic": "FIOBCZPP",
        "iban": "CZ7020100000002701000010",
        "account_number": "2701000010/2010"
      },
      "message_id": "LL-2-PO-2",
      "items": [
        {
          "bill_id": 4,
          "bill_no": "BILL202600002",
          "vendor_doc_no": "2026-004790",
          "vendor_name": "Kancelářské potřeby a.s.",
          "amount": 8954,
          "account": {
            "bic": null,
            "iban": "CZ9220100000002701000002",
            "account_number": "2701000002/2010"
          },
          "variable_symbol": "2026004790",
          "constant_symbol": "0308",
          "specific_symbol": null,
          "message": "2026-004790",
          "end_to_end_id": "/VS2026004790/KS0308",
          "risk_accepted": false,
          "status": "ordered",
          "amount_paid": 0
        }
      ],
      "created_at": "2026-12-03T06:53:05.174Z",
      "updated_at": "2026-12-03T06:53:05.174Z",
      "sent_at": null,
      "completed_at": null,
      "cancelled_at": null
    },
    "responseText": {
      "mediaType": "application/xml",
      "text": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:pain.001.001.03\">\n  <CstmrCdtTrfInitn>\n    <GrpHdr>\n      <MsgId>LL-2-PO-2</MsgId>\n      <CreDtTm>2026-12-03T06:53:05</CreDtTm>\n      <NbOfTxs>1</NbOfTxs>\n      <CtrlSum>8954.00</CtrlSum>\n      <InitgPty>\n        <Nm>Novak Consulting s.r.o.</Nm>\n      </InitgPty>\n    </GrpHdr>\n    <PmtInf>\n      <PmtInfId>PO-2</PmtInfId>\n      <PmtMtd>TRF</PmtMtd>\n      <BtchBookg>false</BtchBookg>\n      <NbOfTxs>1</NbOfTxs>\n      <CtrlSum>8954.00</CtrlSum>\n      <ReqdExctnDt>2026-12-04</ReqdExctnDt>\n      <Dbtr>\n        <Nm>Novak Consulting s.r.o.</Nm>\n      </Dbtr>\n      <DbtrAcct>\n        <Id>\n          <IBAN>CZ7020100000002701000010</IBAN>\n        </Id>\n        <Ccy>CZK</Ccy>\n      </DbtrAcct>\n      <DbtrAgt>\n        <FinInstnId>\n          <BIC>FIOBCZPP</BIC>\n        </FinInstnId>\n      </DbtrAgt>\n      <CdtTrfTxInf>\n        <PmtId>\n          <InstrId>PO-2-1</InstrId>\n          <EndToEndId>/VS2026004790/KS0308</EndToEndId>\n        </PmtId>\n        <Amt>\n          <InstdAmt Ccy=\"CZK\">8954.00</InstdAmt>\n        </Amt>\n        <Cdtr>\n          <Nm>Kancelarske potreby a.s.</Nm>\n        </Cdtr>\n        <CdtrAcct>\n          <Id>\n            <IBAN>CZ9220100000002701000002</IBAN>\n          </Id>\n        </CdtrAcct>\n        <RmtInf>\n          <Ustrd>2026-004790</Ustrd>\n        </RmtInf>\n      </CdtTrfTxInf>\n    </PmtInf>\n  </CstmrCdtTrfInitn>\n</Document>\n"
    }
  },
  "markPaymentOrderSent": {
    "response": {
      "id": 2,
      "status": "sent",
      "version": 2,
      "currency": "CZK",
      "execution_date": "2026-12-04",
      "total_amount": 8954,
      "from_account": {
        "bic": "FIOBCZPP",
        "iban": "CZ7020100000002701000010",
        "account_number": "2701000010/2010"
      },
      "message_id": "LL-2-PO-2",
      "items": [
        {
          "bill_id": 4,
          "bill_no": "BILL202600002",
          "vendor_doc_no": "2026-004790",
          "vendor_name": "Kancelářské potřeby a.s.",
          "amount": 8954,
          "account": {
            "bic": null,
            "iban": "CZ9220100000002701000002",
            "account_number": "2701000002/2010"
          },
          "variable_symbol": "2026004790",
          "constant_symbol": "0308",
          "specific_symbol": null,
          "message": "2026-004790",
          "end_to_end_id": "/VS2026004790/KS0308",
          "risk_accepted": false,
          "status": "ordered",
          "amount_paid": 0
        }
      ],
      "created_at": "2026-12-03T06:53:05.174Z",
      "updated_at": "2026-12-03T06:53:05.203Z",
      "sent_at": "2026-12-03T06:53:05.203Z",
      "completed_at": null,
      "cancelled_at": null
    }
  },
  "cancelPaymentOrder": {
    "response": {
      "id": 1,
      "status": "cancelled",
      "version": 2,
      "currency": "CZK",
      "execution_date": "2026-12-04",
      "total_amount": 8954,
      "from_account": {
        "bic": "FIOBCZPP",
        "iban": "CZ7020100000002701000010",
        "account_number": "2701000010/2010"
      },
      "message_id": "LL-2-PO-1",
      "items": [
        {
          "bill_id": 4,
          "bill_no": "BILL202600002",
          "vendor_doc_no": "2026-004790",
          "vendor_name": "Kancelářské potřeby a.s.",
          "amount": 8954,
          "account": {
            "bic": null,
            "iban": "CZ9220100000002701000002",
            "account_number": "2701000002/2010"
          },
          "variable_symbol": "2026004790",
          "constant_symbol": "0308",
          "specific_symbol": null,
          "message": "2026-004790",
          "end_to_end_id": "/VS2026004790/KS0308",
          "risk_accepted": false,
          "status": "cancelled",
          "amount_paid": 0
        }
      ],
      "created_at": "2026-12-03T06:53:05.140Z",
      "updated_at": "2026-12-03T06:53:05.159Z",
      "sent_at": null,
      "completed_at": null,
      "cancelled_at": "2026-12-03T06:53:05.159Z"
    }
  },
  "createFioIntegration": {
    "request": {
      "token": "Xk3f9QpR2mT7vW1yZ8aB4cD6eF0gH5jL3nP9qS2uV7wX1zA4bC8dE6fG0hJ2kM5n",
      "name": "Fio operating account",
      "account": "2701000002/2010",
      "interval_minutes": 60,
      "fetch_from": "2026-11-01"
    },
    "response": {
      "id": 1,
      "name": "Fio operating account",
      "account": "2701000002/2010",
      "interval_minutes": 60,
      "fetch_from": "2026-11-01",
      "token": "****kM5n",
      "next_fetch_at": "2026-12-03T06:52:59.580Z",
      "last_fetch_at": null,
      "last_success_at": null,
      "last_result": null,
      "last_error": null,
      "created_at": "2026-12-03T06:52:59.580Z",
      "updated_at": "2026-12-03T06:52:59.580Z"
    }
  },
  "listFioIntegrations": {
    "response": {
      "entities": [
        {
          "id": 1,
          "name": "Fio operating account",
          "account": "2701000002/2010",
          "interval_minutes": 30,
          "fetch_from": "2026-11-01",
          "token": "****kM5n",
          "next_fetch_at": "2026-12-03T07:22:59.655Z",
          "last_fetch_at": "2026-12-03T06:52:59.595Z",
          "last_success_at": "2026-12-03T06:52:59.595Z",
          "last_result": {
            "date_to": "2026-12-03",
            "recorded": 1,
            "date_from": "2026-11-01",
            "movements": 1,
            "statement_id": 1
          },
          "last_error": null,
          "created_at": "2026-12-03T06:52:59.580Z",
          "updated_at": "2026-12-03T06:52:59.655Z"
        }
      ]
    }
  },
  "getFioIntegration": {
    "response": {
      "id": 1,
      "name": "Fio operating account",
      "account": "2701000002/2010",
      "interval_minutes": 30,
      "fetch_from": "2026-11-01",
      "token": "****kM5n",
      "next_fetch_at": "2026-12-03T07:22:59.655Z",
      "last_fetch_at": "2026-12-03T06:52:59.595Z",
      "last_success_at": "2026-12-03T06:52:59.595Z",
      "last_result": {
        "date_to": "2026-12-03",
        "recorded": 1,
        "date_from": "2026-11-01",
        "movements": 1,
        "statement_id": 1
      },
      "last_error": null,
      "created_at": "2026-12-03T06:52:59.580Z",
      "updated_at": "2026-12-03T06:52:59.655Z"
    }
  },
  "replaceFioIntegration": {
    "request": {
      "name": "Fio operating account",
      "account": "2701000002/2010",
      "interval_minutes": 30
    },
    "response": {
      "id": 1,
      "name": "Fio operating account",
      "account": "2701000002/2010",
      "interval_minutes": 30,
      "fetch_from": "2026-11-01",
      "token": "****kM5n",
      "next_fetch_at": "2026-12-03T07:22:59.655Z",
      "last_fetch_at": "2026-12-03T06:52:59.595Z",
      "last_success_at": "2026-12-03T06:52:59.595Z",
      "last_result": {
        "date_to": "2026-12-03",
        "recorded": 1,
        "date_from": "2026-11-01",
        "movements": 1,
        "statement_id": 1
      },
      "last_error": null,
      "created_at": "2026-12-03T06:52:59.580Z",
      "updated_at": "2026-12-03T06:52:59.655Z"
    }
  },
  "deleteFioIntegration": {
    "response": {
      "id": 2,
      "name": "Fio savings",
      "account": null,
      "interval_minutes": 60,
      "fetch_from": "2026-12-03",
      "token": "****kM5n",
      "next_fetch_at": "2026-12-03T06:52:59.682Z",
      "last_fetch_at": null,
      "last_success_at": null,
      "last_result": null,
      "last_error": null,
      "created_at": "2026-12-03T06:52:59.682Z",
      "updated_at": "2026-12-03T06:52:59.682Z"
    }
  },
  "fetchFioIntegration": {
    "response": {
      "id": 1,
      "name": "Fio operating account",
      "account": "2701000002/2010",
      "interval_minutes": 60,
      "fetch_from": "2026-11-01",
      "token": "****kM5n",
      "next_fetch_at": "2026-12-03T07:52:59.595Z",
      "last_fetch_at": "2026-12-03T06:52:59.595Z",
      "last_success_at": "2026-12-03T06:52:59.595Z",
      "last_result": {
        "date_to": "2026-12-03",
        "recorded": 1,
        "date_from": "2026-11-01",
        "movements": 1,
        "statement_id": 1
      },
      "last_error": null,
      "created_at": "2026-12-03T06:52:59.580Z",
      "updated_at": "2026-12-03T06:52:59.595Z"
    }
  },
  "listAccountingTransactions": {
    "response": {
      "total": 1,
      "total_exact": true,
      "from": 0,
      "take": 1,
      "next_cursor": null,
      "entities": [
        {
          "id": 4,
          "uid": "d92bbee6-b22f-557a-bf89-e284b4d8bf7a",
          "created_at": "2026-12-03T06:53:00.091Z",
          "edited_at": null,
          "books": [
            {
              "id": 1
            }
          ],
          "type": "sales_invoice",
          "transaction_type": null,
          "cash_card": null,
          "no": "FV202600001",
          "vendor_doc_no": null,
          "credited_doc_no": null,
          "payment_reference": null,
          "date_issued": "2026-11-03",
          "date_due": "2026-11-17",
          "date_posting": "2026-11-03",
          "date_taxable": "2026-11-03",
          "date_tax_applied": "2026-11-03",
          "date_from": null,
          "date_to": null,
          "currency": "CZK",
          "precision": 2,
          "contact": {
            "id": 2001,
            "email": "accounts@acme.example",
            "reg_no": "12345678",
            "vat_no": "CZ12345678",
            "address": {
              "city": "Praha",
              "country": "CZ",
              "address1": "Dlouhá 12",
              "postal_code": "110 00"
            },
            "peppol_id": "9929:CZ12345678",
            "business_name": "Acme s.r.o."
          },
          "bank_account": null,
          "tax_nexus": null,
          "tax_deduction_ratio": null,
          "net_deduction_ratio": null,
          "opening_balance": null,
          "closing_balance": null,
          "amount_paid": 0,
          "amount_due": 22788,
          "accounting_status": "posted",
          "rows": [
            {
              "id": 8,
              "order": 1,
              "is_locked": true,
              "payment_amount": null,
              "date_posting": "2026-11-03",
              "currency": "CZK",
              "payment_reference": null,
              "tax_deduction_ratio": null,
              "net_deduction_ratio": null,
              "contact": {
                "id": 2001,
                "email": "accounts@acme.example",
                "reg_no": "12345678",
                "vat_no": "CZ12345678",
                "address": {
                  "city": "Praha",
                  "country": "CZ",
                  "address1": "Dlouhá 12",
                  "postal_code": "110 00"
                },
                "peppol_id": "9929:CZ12345678",
                "business_name": "Acme s.r.o."
              },
              "paid_record": null,
              "taxes": [],
              "fx_rates": [],
              "debit": 22788,
              "credit": 0,
              "gl_account": {
                "id": 4,
                "number": "311",
                "name": "Customers (receivables)",
                "description": null
              },
              "description": null
            },
            {
              "id": 9,
              "order": 2,
              "is_locked": true,
              "payment_amount": null,
              "date_posting": "2026-11-03",
              "currency": "CZK",
              "payment_reference": null,
              "tax_deduction_ratio": null,
              "net_deduction_ratio": null,
              "contact": {
                "id": 2001,
                "email": "accounts@acme.example",
                "reg_no": "12345678",
                "vat_no": "CZ12345678",
                "address": {
                  "city": "Praha",
                  "country": "CZ",
                  "address1": "Dlouhá 12",
                  "postal_code": "110 00"
                },
                "peppol_id": "9929:CZ12345678",
                "business_name": "Acme s.r.o."
              },
              "paid_record": null,
              "taxes": [],
              "fx_rates": [],
              "debit": 0,
              "credit": 900,
              "gl_account": {
                "id": 13,
                "number": "604",
                "name": "Revenue from goods",
                "description": null
              },
              "description": null
            },
            {
              "id": 10,
              "order": 3,
              "is_locked": true,
              "payment_amount": null,
              "date_posting": "2026-11-03",
              "currency": "CZK",
              "payment_reference": null,
              "tax_deduction_ratio": null,
              "net_deduction_ratio": null,
              "contact": {
                "id": 2001,
                "email": "accounts@acme.example",
                "reg_no": "12345678",
                "vat_no": "CZ12345678",
                "address": {
                  "city": "Praha",
                  "country": "CZ",
                  "address1": "Dlouhá 12",
                  "postal_code": "110 00"
                },
                "peppol_id": "9929:CZ12345678",
                "business_name": "Acme s.r.o."
              },
              "paid_record": null,
              "taxes": [],
              "fx_rates": [],
              "debit": 0,
              "credit": 18000,
              "gl_account": {
                "id": 12,
                "number": "602",
                "name": "Revenue from services",
                "description": null
              },
              "description": null
            },
            {
              "id": 11,
              "order": 4,
              "is_locked": true,
              "payment_amount": null,
              "date_posting": "2026-11-03",
              "currency": "CZK",
              "payment_reference": null,
              "tax_deduction_ratio": null,
              "net_deduction_ratio": null,
              "contact": {
                "id": 2001,
                "email": "accounts@acme.example",
                "reg_no": "12345678",
                "vat_no": "CZ12345678",
                "address": {
                  "city": "Praha",
                  "country": "CZ",
                  "address1": "Dlouhá 12",
                  "postal_code": "110 00"
                },
                "peppol_id": "9929:CZ12345678",
                "business_name": "Acme s.r.o."
              },
              "paid_record": null,
              "taxes": [
                {
                  "id": 2,
                  "is_locked": true,
                  "currency": "CZK",
                  "tax_rate": 21,
                  "tax_rate_rc": null,
                  "is_reverse_charge": false,
                  "tax_index": null,
                  "tax_code": "S",
                  "tax_name": "VAT 21 %",
                  "tax_base_in": null,
                  "tax_base_in_leg": null,
                  "tax_base_out": 18000,
                  "tax_base_out_leg": 18000,
                  "tax_amount_in": null,
                  "tax_amount_in_leg": null,
                  "tax_amount_claim": null,
                  "tax_amount_claim_leg": null,
                  "tax_amount_out": 3780,
                  "tax_amount_out_leg": 3780,
                  "tax_return_base_in": null,
                  "tax_return_base_out": "1",
                  "tax_return_amount_claim": null,
                  "tax_return_amount_out": "1",
                  "tax_control_statement": "A.4",
                  "tax_eu_sales_report": null,
                  "tax_deduction_ratio": null,
                  "net_deduction_ratio": null,
                  "debit": 0,
                  "credit": 3780,
                  "gl_account": {
                    "id": 6,
                    "number": "343",
                    "name": "Value added tax",
                    "description": null
                  },
                  "description": "VAT 21 %"
                },
                {
                  "id": 1,
                  "is_locked": true,
                  "currency": "CZK",
                  "tax_rate": 12,
                  "tax_rate_rc": null,
                  "is_reverse_charge": false,
                  "tax_index": null,
                  "tax_code": "R",
                  "tax_name": "VAT 12 %",
                  "tax_base_in": null,
                  "tax_base_in_leg": null,
                  "tax_base_out": 900,
                  "tax_base_out_leg": 900,
                  "tax_amount_in": null,
                  "tax_amount_in_leg": null,
                  "tax_amount_claim": null,
                  "tax_amount_claim_leg": null,
                  "tax_amount_out": 108,
                  "tax_amount_out_leg": 108,
                  "tax_return_base_in": null,
                  "tax_return_base_out": "2",
                  "tax_return_amount_claim": null,
                  "tax_return_amount_out": "2",
                  "tax_control_statement": "A.4",
                  "tax_eu_sales_report": null,
                  "tax_deduction_ratio": null,
                  "net_deduction_ratio": null,
                  "debit": 0,
                  "credit": 108,
                  "gl_account": {
                    "id": 6,
                    "number": "343",
                    "name": "Value added tax",
                    "description": null
                  },
                  "description": "VAT 12 %"
                }
              ],
              "fx_rates": [],
              "debit": 0,
              "credit": 3888,
              "gl_account": {
                "id": 6,
                "number": "343",
                "name": "Value added tax",
                "description": null
              },
              "description": null
            }
          ],
          "act_rows": [
            {
              "id": 8,
              "type": "receivable",
              "debit": 22788,
              "credit": 0,
              "gl_account": {
                "id": 4,
                "number": "311",
                "name": "Customers (receivables)",
                "description": null
              }
            },
            {
              "id": 9,
              "type": "revenue",
              "debit": 0,
              "credit": 900,
              "gl_account": {
                "id": 13,
                "number": "604",
                "name": "Revenue from goods",
                "description": null
              }
            },
            {
              "id": 10,
              "type": "revenue",
              "debit": 0,
              "credit": 18000,
              "gl_account": {
                "id": 12,
                "number": "602",
                "name": "Revenue from services",
                "description": null
              }
            },
            {
              "id": 11,
              "type": "tax",
              "debit": 0,
              "credit": 3888,
              "gl_account": {
                "id": 6,
                "number": "343",
                "name": "Value added tax",
                "description": null
              }
            }
          ],
          "taxes": [
            {
              "id": 11,
              "debit": 0,
              "credit": 3888,
              "gl_account": {
                "id": 6,
                "number": "343",
                "name": "Value added tax",
                "description": null
              }
            }
          ],
          "fx_rates": [],
          "is_locked": true,
          "debit": 22788,
          "credit": 22788,
          "gl_account": null,
          "description": null,
          "source": {
            "type": "sales_invoice",
            "id": 1,
            "version": 1
          },
          "legal_currency": "CZK",
          "reverses_id": null
        }
      ],
      "aggregations": []
    }
  },
  "listAccounts": {
    "response": {
      "total": 17,
      "from": 0,
      "take": 2,
      "entities": [
        {
          "id": 48,
          "number": "501",
          "name": "Materials consumed",
          "name_cs": "Spotřeba materiálu",
          "name_en": "Materials consumed",
          "description": null,
          "is_default": true
        },
        {
          "id": 49,
          "number": "502",
          "name": "Energy consumed",
          "name_cs": "Spotřeba energie",
          "name_en": "Energy consumed",
          "description": null,
          "is_default": true
        }
      ],
      "aggregations": []
    }
  },
  "getAccount": {
    "response": {
      "id": 56,
      "number": "551",
      "name": "Depreciation and amortisation",
      "name_cs": "Odpisy dlouhodobého nehmotného a hmotného majetku",
      "name_en": "Depreciation and amortisation",
      "description": null,
      "is_default": true
    }
  },
  "saveAccount": {
    "request": {
      "name_cs": "Fio – účet EUR",
      "name_en": "Fio EUR account",
      "description": "CZ2120100000002900654321"
    },
    "response": {
      "id": 277,
      "number": "221.002",
      "name": "Fio EUR account",
      "name_cs": "Fio – účet EUR",
      "name_en": "Fio EUR account",
      "description": "CZ2120100000002900654321",
      "is_default": false
    }
  },
  "exportTrialBalance": {
    "request": [
      {
        "columns": [
          {
            "key": "gl_account.number",
            "title": "Account"
          },
          {
            "key": "gl_account.name",
            "title": "Name"
          },
          {
            "key": "debit"
          },
          {
            "key": "credit"
          },
          {
            "key": "cb",
            "title": "Closing balance"
          }
        ]
      }
    ],
    "response": {
      "currency": "CZK",
      "period_from": "2026-11",
      "period_to": "2026-11",
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "rows": [
        {
          "gl_account": {
            "id": 2,
            "number": "221",
            "name": "Bank accounts"
          },
          "debit": 79568.3,
          "credit": 2721.5,
          "cb": 76846.8
        },
        {
          "gl_account": {
            "id": 4,
            "number": "311",
            "name": "Customers (receivables)"
          },
          "debit": 98708,
          "credit": 74208,
          "cb": 85000
        },
        {
          "gl_account": {
            "id": 5,
            "number": "321",
            "name": "Vendors (payables)"
          },
          "debit": 1076.9,
          "credit": 18307.3,
          "cb": -25630.4
        },
        {
          "gl_account": {
            "id": 29,
            "number": "324",
            "name": "Advances received"
          },
          "debit": 48400,
          "credit": 48400,
          "cb": 0
        },
        {
          "gl_account": {
            "id": 6,
            "number": "343",
            "name": "Value added tax"
          },
          "debit": 12207.3,
          "credit": 25599.04,
          "cb": -23891.74
        },
        {
          "gl_account": {
            "id": 7,
            "number": "395",
            "name": "Suspense account"
          },
          "debit": 2415,
          "credit": 9070,
          "cb": -6655
        },
        {
          "gl_account": {
            "id": 48,
            "number": "501",
            "name": "Materials consumed"
          },
          "debit": 1780,
          "credit": 0,
          "cb": 1780
        },
        {
          "gl_account": {
            "id": 8,
            "number": "504",
            "name": "Cost of goods sold"
          },
          "debit": 13350,
          "credit": 890,
          "cb": 12460
        },
        {
          "gl_account": {
            "id": 9,
            "number": "518",
            "name": "Services purchased"
          },
          "debit": 0,
          "credit": 0,
          "cb": 8400
        },
        {
          "gl_account": {
            "id": 11,
            "number": "568",
            "name": "Bank and platform fees"
          },
          "debit": 124.7,
          "credit": 38.5,
          "cb": 86.2
        },
        {
          "gl_account": {
            "id": 12,
            "number": "602",
            "name": "Revenue from services"
          },
          "debit": 0,
          "credit": 18000,
          "cb": -68000
        },
        {
          "gl_account": {
            "id": 13,
            "number": "604",
            "name": "Revenue from goods"
          },
          "debit": 3000,
          "credit": 63395.86,
          "cb": -60395.86
        }
      ]
    }
  },
  "getVatReturn": {
    "response": {
      "currency": "CZK",
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "rows": [
        {
          "row": "1",
          "name": "Domestic supplies, basic rate",
          "base": 77495.86,
          "tax": 16274.14
        },
        {
          "row": "2",
          "name": "Domestic supplies, reduced rate",
          "base": 900,
          "tax": 108
        },
        {
          "row": "21",
          "name": "Services supplied to another EU state",
          "base": 6000,
          "tax": 0
        },
        {
          "row": "40",
          "name": "Deduction: domestic purchases, basic rate",
          "base": 14240,
          "tax": 2990.4
        }
      ],
      "output_tax": 16382.14,
      "deductible_tax": 2990.4,
      "tax_due": 13391.74,
      "excess_deduction": 0,
      "filed": {
        "rows": [
          {
            "row": "1",
            "name": "Domestic supplies, basic rate",
            "base": 77496,
            "tax": 16274
          },
          {
            "row": "2",
            "name": "Domestic supplies, reduced rate",
            "base": 900,
            "tax": 108
          },
          {
            "row": "21",
            "name": "Services supplied to another EU state",
            "base": 6000,
            "tax": 0
          },
          {
            "row": "40",
            "name": "Deduction: domestic purchases, basic rate",
            "base": 14240,
            "tax": 2990
          }
        ],
        "output_tax": 16382,
        "deductible_tax": 2990,
        "tax_due": 13392,
        "excess_deduction": 0
      },
      "entries": 11,
      "closed": false
    }
  },
  "getControlStatement": {
    "response": {
      "currency": "CZK",
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "a1": [],
      "a2": [],
      "a4": [
        {
          "partner_vat_no": "CZ12345678",
          "document_no": "FV202600001",
          "date_taxable": "2026-11-03",
          "source": {
            "type": "sales_invoice",
            "id": 1
          },
          "base_basic": 18000,
          "tax_basic": 3780,
          "base_reduced": 900,
          "tax_reduced": 108
        },
        {
          "partner_vat_no": "CZ12345678",
          "document_no": "DZ202600001",
          "date_taxable": "2026-11-06",
          "source": {
            "type": "sales_advance_tax_document",
            "id": 6
          },
          "base_basic": 40000,
          "tax_basic": 8400,
          "base_reduced": 0,
          "tax_reduced": 0
        },
        {
          "partner_vat_no": "CZ12345678",
          "document_no": "CN202600001",
          "date_taxable": "2026-11-10",
          "source": {
            "type": "sales_credit_note",
            "id": 2
          },
          "base_basic": -3000,
          "tax_basic": -630,
          "base_reduced": 0,
          "tax_reduced": 0
        },
        {
          "partner_vat_no": "CZ12345678",
          "document_no": "FV202600002",
          "date_taxable": "2026-11-30",
          "source": {
            "type": "sales_invoice",
            "id": 7
          },
          "base_basic": 20000,
          "tax_basic": 4200,
          "base_reduced": 0,
          "tax_reduced": 0
        }
      ],
      "a5": {
        "base_basic": 2495.86,
        "tax_basic": 524.14,
        "base_reduced": 0,
        "tax_reduced": 0
      },
      "b1": [],
      "b2": [],
      "b3": {
        "base_basic": 14240,
        "tax_basic": 2990.4,
        "base_reduced": 0,
        "tax_reduced": 0
      },
      "closed": false
    },
    "responseText": {
      "mediaType": "application/xml",
      "text": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Pisemnost nazevSW=\"Ledgerline\" verzeSW=\"1.0.0\">\n  <DPHKH1 verzePis=\"03.01.14\">\n    <VetaD dokument=\"KH1\" k_uladis=\"DPH\" mesic=\"11\" rok=\"2026\" d_poddp=\"03.12.2026\" khdph_forma=\"B\"/>\n    <VetaP c_ufo=\"451\" c_pracufo=\"2001\" dic=\"27074358\" typ_ds=\"P\" zkrobchjm=\"Novák Consulting s.r.o.\" ulice=\"Václavské náměstí\" c_pop=\"1\" naz_obce=\"Praha\" psc=\"11000\" stat=\"ČESKÁ REPUBLIKA\" email=\"ucetni@novak-consulting.example\" c_telef=\"+420222333444\" opr_jmeno=\"Jan\" opr_prijmeni=\"Novák\" opr_postaveni=\"jednatel\" sest_jmeno=\"Eva\" sest_prijmeni=\"Svobodová\" sest_telef=\"+420601123456\"/>\n    <VetaA4 c_radku=\"1\" dic_odb=\"12345678\" c_evid_dd=\"FV202600001\" dppd=\"03.11.2026\" zakl_dane1=\"18000.00\" dan1=\"3780.00\" zakl_dane2=\"900.00\" dan2=\"108.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"2\" dic_odb=\"12345678\" c_evid_dd=\"DZ202600001\" dppd=\"06.11.2026\" zakl_dane1=\"40000.00\" dan1=\"8400.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"3\" dic_odb=\"12345678\" c_evid_dd=\"CN202600001\" dppd=\"10.11.2026\" zakl_dane1=\"-3000.00\" dan1=\"-630.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"4\" dic_odb=\"12345678\" c_evid_dd=\"FV202600002\" dppd=\"30.11.2026\" zakl_dane1=\"20000.00\" dan1=\"4200.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA5 zakl_dane1=\"2495.86\" dan1=\"524.14\"/>\n    <VetaB3 zakl_dane1=\"14240.00\" dan1=\"2990.40\"/>\n    <VetaC obrat23=\"77495.86\" obrat5=\"900.00\" pln23=\"14240.00\" pln5=\"0.00\" pln_rez_pren=\"0.00\" rez_pren23=\"0.00\" rez_pren5=\"0.00\" celk_zd_a2=\"0.00\"/>\n  </DPHKH1>\n</Pisemnost>\n"
    }
  },
  "getEuSalesList": {
    "response": {
      "currency": "CZK",
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "lines": [
        {
          "country": "DE",
          "vat_no": "811907980",
          "code": "3",
          "base": 6000,
          "documents": 1
        }
      ],
      "closed": false
    }
  },
  "listTaxFilings": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 1,
      "entities": [
        {
          "id": 1,
          "form": "DPHKH1",
          "date_from": "2026-11-01",
          "date_to": "2026-11-30",
          "kind": "B",
          "tax": null,
          "sha256": "bc1d76fe1f0016dbe755c2d84eeadb6bfdcca3778eba0c27df3313baca2a9ba9",
          "xml": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Pisemnost nazevSW=\"Ledgerline\" verzeSW=\"1.0.0\">\n  <DPHKH1 verzePis=\"03.01.14\">\n    <VetaD dokument=\"KH1\" k_uladis=\"DPH\" mesic=\"11\" rok=\"2026\" d_poddp=\"03.12.2026\" khdph_forma=\"B\"/>\n    <VetaP c_ufo=\"451\" c_pracufo=\"2001\" dic=\"27074358\" typ_ds=\"P\" zkrobchjm=\"Novák Consulting s.r.o.\" ulice=\"Václavské náměstí\" c_pop=\"1\" naz_obce=\"Praha\" psc=\"11000\" stat=\"ČESKÁ REPUBLIKA\" email=\"ucetni@novak-consulting.example\" c_telef=\"+420222333444\" opr_jmeno=\"Jan\" opr_prijmeni=\"Novák\" opr_postaveni=\"jednatel\" sest_jmeno=\"Eva\" sest_prijmeni=\"Svobodová\" sest_telef=\"+420601123456\"/>\n    <VetaA4 c_radku=\"1\" dic_odb=\"12345678\" c_evid_dd=\"FV202600001\" dppd=\"03.11.2026\" zakl_dane1=\"18000.00\" dan1=\"3780.00\" zakl_dane2=\"900.00\" dan2=\"108.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"2\" dic_odb=\"12345678\" c_evid_dd=\"DZ202600001\" dppd=\"06.11.2026\" zakl_dane1=\"40000.00\" dan1=\"8400.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"3\" dic_odb=\"12345678\" c_evid_dd=\"CN202600001\" dppd=\"10.11.2026\" zakl_dane1=\"-3000.00\" dan1=\"-630.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"4\" dic_odb=\"12345678\" c_evid_dd=\"FV202600002\" dppd=\"30.11.2026\" zakl_dane1=\"20000.00\" dan1=\"4200.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA5 zakl_dane1=\"2495.86\" dan1=\"524.14\"/>\n    <VetaB3 zakl_dane1=\"14240.00\" dan1=\"2990.40\"/>\n    <VetaC obrat23=\"77495.86\" obrat5=\"900.00\" pln23=\"14240.00\" pln5=\"0.00\" pln_rez_pren=\"0.00\" rez_pren23=\"0.00\" rez_pren5=\"0.00\" celk_zd_a2=\"0.00\"/>\n  </DPHKH1>\n</Pisemnost>\n",
          "created_at": "2026-12-03T06:53:05.724Z",
          "created_by": "key:2"
        }
      ],
      "aggregations": []
    }
  },
  "fileTaxFiling": {
    "request": {
      "form": "DPHKH1",
      "date_from": "2026-11-01",
      "date_to": "2026-11-30"
    },
    "response": {
      "id": 1,
      "form": "DPHKH1",
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "kind": "B",
      "tax": null,
      "sha256": "bc1d76fe1f0016dbe755c2d84eeadb6bfdcca3778eba0c27df3313baca2a9ba9",
      "xml": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Pisemnost nazevSW=\"Ledgerline\" verzeSW=\"1.0.0\">\n  <DPHKH1 verzePis=\"03.01.14\">\n    <VetaD dokument=\"KH1\" k_uladis=\"DPH\" mesic=\"11\" rok=\"2026\" d_poddp=\"03.12.2026\" khdph_forma=\"B\"/>\n    <VetaP c_ufo=\"451\" c_pracufo=\"2001\" dic=\"27074358\" typ_ds=\"P\" zkrobchjm=\"Novák Consulting s.r.o.\" ulice=\"Václavské náměstí\" c_pop=\"1\" naz_obce=\"Praha\" psc=\"11000\" stat=\"ČESKÁ REPUBLIKA\" email=\"ucetni@novak-consulting.example\" c_telef=\"+420222333444\" opr_jmeno=\"Jan\" opr_prijmeni=\"Novák\" opr_postaveni=\"jednatel\" sest_jmeno=\"Eva\" sest_prijmeni=\"Svobodová\" sest_telef=\"+420601123456\"/>\n    <VetaA4 c_radku=\"1\" dic_odb=\"12345678\" c_evid_dd=\"FV202600001\" dppd=\"03.11.2026\" zakl_dane1=\"18000.00\" dan1=\"3780.00\" zakl_dane2=\"900.00\" dan2=\"108.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"2\" dic_odb=\"12345678\" c_evid_dd=\"DZ202600001\" dppd=\"06.11.2026\" zakl_dane1=\"40000.00\" dan1=\"8400.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"3\" dic_odb=\"12345678\" c_evid_dd=\"CN202600001\" dppd=\"10.11.2026\" zakl_dane1=\"-3000.00\" dan1=\"-630.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA4 c_radku=\"4\" dic_odb=\"12345678\" c_evid_dd=\"FV202600002\" dppd=\"30.11.2026\" zakl_dane1=\"20000.00\" dan1=\"4200.00\" kod_rezim_pl=\"0\" zdph_44=\"N\"/>\n    <VetaA5 zakl_dane1=\"2495.86\" dan1=\"524.14\"/>\n    <VetaB3 zakl_dane1=\"14240.00\" dan1=\"2990.40\"/>\n    <VetaC obrat23=\"77495.86\" obrat5=\"900.00\" pln23=\"14240.00\" pln5=\"0.00\" pln_rez_pren=\"0.00\" rez_pren23=\"0.00\" rez_pren5=\"0.00\" celk_zd_a2=\"0.00\"/>\n  </DPHKH1>\n</Pisemnost>\n",
      "created_at": "2026-12-03T06:53:05.724Z",
      "created_by": "key:2"
    }
  },
  "getProfitAndLoss": {
    "response": {
      "currency": "CZK",
      "closed": false,
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "revenue": {
        "lines": [
          {
            "gl_account": {
              "id": 12,
              "number": "602",
              "name": "Revenue from services",
              "description": null
            },
            "amount": 18000
          },
          {
            "gl_account": {
              "id": 13,
              "number": "604",
              "name": "Revenue from goods",
              "description": null
            },
            "amount": 66395.86
          }
        ],
        "total": 84395.86
      },
      "expenses": {
        "lines": [
          {
            "gl_account": {
              "id": 48,
              "number": "501",
              "name": "Materials consumed",
              "description": null
            },
            "amount": 1780
          },
          {
            "gl_account": {
              "id": 8,
              "number": "504",
              "name": "Cost of goods sold",
              "description": null
            },
            "amount": 12460
          },
          {
            "gl_account": {
              "id": 9,
              "number": "518",
              "name": "Services purchased",
              "description": null
            },
            "amount": 12000
          },
          {
            "gl_account": {
              "id": 56,
              "number": "551",
              "name": "Depreciation and amortisation",
              "description": null
            },
            "amount": 10075
          },
          {
            "gl_account": {
              "id": 11,
              "number": "568",
              "name": "Bank and platform fees",
              "description": null
            },
            "amount": 86.2
          }
        ],
        "total": 36401.2
      },
      "profit": 47994.66
    }
  },
  "getBalanceSheet": {
    "response": {
      "currency": "CZK",
      "as_of": "2026-11-30",
      "assets": {
        "lines": [
          {
            "gl_account": {
              "id": 23,
              "number": "082",
              "name": "Accumulated depreciation of equipment",
              "description": null
            },
            "amount": -10075
          },
          {
            "gl_account": {
              "id": 2,
              "number": "221",
              "name": "Bank accounts",
              "description": null
            },
            "amount": 76846.8
          },
          {
            "gl_account": {
              "id": 4,
              "number": "311",
              "name": "Customers (receivables)",
              "description": null
            },
            "amount": 91000
          }
        ],
        "total": 157771.8
      },
      "liabilities": {
        "lines": [
          {
            "gl_account": {
              "id": 5,
              "number": "321",
              "name": "Vendors (payables)",
              "description": null
            },
            "amount": 25630.4
          },
          {
            "gl_account": {
              "id": 6,
              "number": "343",
              "name": "Value added tax",
              "description": null
            },
            "amount": 23891.74
          },
          {
            "gl_account": {
              "id": 42,
              "number": "389",
              "name": "Estimated payables",
              "description": null
            },
            "amount": 12000
          },
          {
            "gl_account": {
              "id": 7,
              "number": "395",
              "name": "Suspense account",
              "description": null
            },
            "amount": 6655
          }
        ],
        "total": 68177.14
      },
      "equity": {
        "lines": [],
        "total": 0
      },
      "result": 89594.66,
      "result_of_year": 47994.66,
      "result_of_earlier_years": 41600,
      "total_assets": 157771.8,
      "total_liabilities_and_equity": 157771.8,
      "closed": false
    }
  },
  "getAccountLedger": {
    "response": {
      "currency": "CZK",
      "account_number": "221",
      "date_from": "2026-11-01",
      "date_to": "2026-11-30",
      "opening_balance": 0,
      "debit": 79568.3,
      "credit": 2721.5,
      "closing_balance": 76846.8,
      "total": 15,
      "total_exact": true,
      "from": 0,
      "take": 2,
      "next_cursor": "eyJvIjpbImRhdGVfcG9zdGluZyIsInRyYW5zYWN0aW9uX2lkIiwib3JkIl0sImYiOiJ1V1pGZlVXVFBGeWxvNnNkIiwidiI6WyIyMDI2LTExLTA2IiwiNyIsIjEiXX0",
      "lines": [
        {
          "date_posting": "2026-11-04",
          "gl_account": {
            "id": 2,
            "number": "221",
            "name": "Bank accounts",
            "description": null
          },
          "transaction_id": 3,
          "no": null,
          "type": "bank_transaction",
          "source": {
            "type": "bank_transaction",
            "id": 1,
            "version": 1
          },
          "description": "Invoice 2026001",
          "debit": 4840,
          "credit": 0,
          "balance": 4840
        },
        {
          "date_posting": "2026-11-06",
          "gl_account": {
            "id": 2,
            "number": "221",
            "name": "Bank accounts",
            "description": null
          },
          "transaction_id": 7,
          "no": null,
          "type": "bank_transaction",
          "source": {
            "type": "bank_transaction",
            "id": 2,
            "version": 1
          },
          "description": null,
          "debit": 48400,
          "credit": 0,
          "balance": 53240
        }
      ]
    }
  },
  "createJournalEntry": {
    "request": {
      "date_posting": "2026-11-30",
      "description": "Depreciation November 2026",
      "reference": "Asset register 11/2026",
      "lines": [
        {
          "account_number": "551",
          "debit": 4250,
          "description": "Depreciation of equipment"
        },
        {
          "account_number": "082",
          "credit": 4250,
          "description": "Accumulated depreciation: laptops"
        }
      ]
    },
    "response": {
      "id": 3,
      "no": "JE-2026-0001",
      "kind": "manual",
      "date_posting": "2026-11-30",
      "description": "Depreciation November 2026",
      "reference": "Asset register 11/2026",
      "currency": "CZK",
      "total": 4250,
      "lines": [
        {
          "order": 1,
          "account_number": "551",
          "debit": 4250,
          "credit": 0,
          "description": "Depreciation of equipment"
        },
        {
          "order": 2,
          "account_number": "082",
          "debit": 0,
          "credit": 4250,
          "description": "Accumulated depreciation: laptops"
        }
      ],
      "reverses": null,
      "reversed_by": null,
      "created_at": "2026-12-03T06:53:05.770Z",
      "created_by": "key:2"
    }
  },
  "listJournalEntries": {
    "response": {
      "total": 2,
      "total_exact": true,
      "from": 0,
      "take": 1,
      "next_cursor": "eyJvIjpbImRhdGVfcG9zdGluZyIsImlkIl0sImYiOiJQN2hlMm5PdGtscVVDaGJIIiwidiI6WyIyMDI2LTExLTMwIiwiMyJdfQ",
      "entities": [
        {
          "id": 3,
          "no": "JE-2026-0001",
          "kind": "manual",
          "date_posting": "2026-11-30",
          "description": "Depreciation November 2026",
          "reference": "Asset register 11/2026",
          "currency": "CZK",
          "total": 4250,
          "lines": [
            {
              "order": 1,
              "account_number": "551",
              "debit": 4250,
              "credit": 0,
              "description": "Depreciation of equipment"
            },
            {
              "order": 2,
              "account_number": "082",
              "debit": 0,
              "credit": 4250,
              "description": "Accumulated depreciation: laptops"
            }
          ],
          "reverses": null,
          "reversed_by": null,
          "created_at": "2026-12-03T06:53:05.770Z",
          "created_by": "key:2"
        }
      ],
      "aggregations": []
    }
  },
  "getJournalEntry": {
    "response": {
      "id": 3,
      "no": "JE-2026-0001",
      "kind": "manual",
      "date_posting": "2026-11-30",
      "description": "Depreciation November 2026",
      "reference": "Asset register 11/2026",
      "currency": "CZK",
      "total": 4250,
      "lines": [
        {
          "order": 1,
          "account_number": "551",
          "debit": 4250,
          "credit": 0,
          "description": "Depreciation of equipment"
        },
        {
          "order": 2,
          "account_number": "082",
          "debit": 0,
          "credit": 4250,
          "description": "Accumulated depreciation: laptops"
        }
      ],
      "reverses": null,
      "reversed_by": null,
      "created_at": "2026-12-03T06:53:05.770Z",
      "created_by": "key:2"
    }
  },
  "reverseJournalEntry": {
    "request": {
      "date_posting": "2026-12-01"
    },
    "response": {
      "id": 5,
      "no": "JE-2026-0003",
      "kind": "manual",
      "date_posting": "2026-12-01",
      "description": "Reversal of JE-2026-0002: Accrued audit fee November",
      "reference": null,
      "currency": "CZK",
      "total": 12000,
      "lines": [
        {
          "order": 1,
          "account_number": "518",
          "debit": 0,
          "credit": 12000,
          "description": null
        },
        {
          "order": 2,
          "account_number": "389",
          "debit": 12000,
          "credit": 0,
          "description": null
        }
      ],
      "reverses": {
        "id": 4,
        "no": "JE-2026-0002"
      },
      "reversed_by": null,
      "created_at": "2026-12-03T06:53:05.792Z",
      "created_by": "key:2"
    }
  },
  "createAsset": {
    "request": {
      "date_acquired": "2026-10-02",
      "date_in_use": "2026-10-05",
      "accounting_depreciation": {
        "method": "straight_line",
        "months": 36
      },
      "tax_depreciation": {
        "group": 1,
        "method": "straight_line"
      },
      "name": "Laptops Lenovo T14, 5 pcs",
      "inventory_number": "HW-2026-014",
      "acquisition_cost": 148500
    },
    "response": {
      "id": 1,
      "name": "Laptops Lenovo T14, 5 pcs",
      "inventory_number": "HW-2026-014",
      "acquisition_cost": 148500,
      "date_acquired": "2026-10-02",
      "date_in_use": "2026-10-05",
      "accounting_depreciation": {
        "method": "straight_line",
        "months": 36
      },
      "tax_depreciation": {
        "group": 1,
        "method": "straight_line",
        "first_year_increase": 0,
        "interrupted_years": []
      },
      "asset_account": "022",
      "accumulated_account": "082",
      "expense_account": "551",
      "improvements": [],
      "bill_id": null,
      "status": "active",
      "cost": 148500,
      "accumulated_depreciation": 0,
      "tax_plan": [
        {
          "year": 2026,
          "depreciation": 29700,
          "residual": 118800,
          "kind": "depreciation"
        },
        {
          "year": 2027,
          "depreciation": 59400,
          "residual": 59400,
          "kind": "depreciation"
        },
        {
          "year": 2028,
          "depreciation": 59400,
          "residual": 0,
          "kind": "depreciation"
        }
      ],
      "accounting_plan": [
        {
          "period": "2026-11",
          "depreciation": 4125,
          "accumulated": 4125,
          "residual": 144375
        },
        {
          "period": "2026-12",
          "depreciation": 4125,
          "accumulated": 8250,
          "residual": 140250
        },
        {
          "period": "2027-01",
          "depreciation": 4125,
          "accumulated": 12375,
          "residual": 136125
        },
        {
          "period": "2027-02",
          "depreciation": 4125,
          "accumulated": 16500,
          "residual": 132000
        },
        {
          "period": "2027-03",
          "depreciation": 4125,
          "accumulated": 20625,
          "residual": 127875
        },
        {
          "period": "2027-04",
          "depreciation": 4125,
          "accumulated": 24750,
          "residual": 123750
        },
        {
          "period": "2027-05",
          "depreciation": 4125,
          "accumulated": 28875,
          "residual": 119625
        },
        {
          "period": "2027-06",
          "depreciation": 4125,
          "accumulated": 33000,
          "residual": 115500
        },
        {
          "period": "2027-07",
          "depreciation": 4125,
          "accumulated": 37125,
          "residual": 111375
        },
        {
          "period": "2027-08",
          "depreciation": 4125,
          "accumulated": 41250,
          "residual": 107250
        },
        {
          "period": "2027-09",
          "depreciation": 4125,
          "accumulated": 45375,
          "residual": 103125
        },
        {
          "period": "2027-10",
          "depreciation": 4125,
          "accumulated": 49500,
          "residual": 99000
        },
        {
          "period": "2027-11",
          "depreciation": 4125,
          "accumulated": 53625,
          "residual": 94875
        },
        {
          "period": "2027-12",
          "depreciation": 4125,
          "accumulated": 57750,
          "residual": 90750
        },
        {
          "period": "2028-01",
          "depreciation": 4125,
          "accumulated": 61875,
          "residual": 86625
        },
        {
          "period": "2028-02",
          "depreciation": 4125,
          "accumulated": 66000,
          "residual": 82500
        },
        {
          "period": "2028-03",
          "depreciation": 4125,
          "accumulated": 70125,
          "residual": 78375
        },
        {
          "period": "2028-04",
          "depreciation": 4125,
          "accumulated": 74250,
          "residual": 74250
        },
        {
          "period": "2028-05",
          "depreciation": 4125,
          "accumulated": 78375,
          "residual": 70125
        },
        {
          "period": "2028-06",
          "depreciation": 4125,
          "accumulated": 82500,
          "residual": 66000
        },
        {
          "period": "2028-07",
          "depreciation": 4125,
          "accumulated": 86625,
          "residual": 61875
        },
        {
          "period": "2028-08",
          "depreciation": 4125,
          "accumulated": 90750,
          "residual": 57750
        },
        {
          "period": "2028-09",
          "depreciation": 4125,
          "accumulated": 94875,
          "residual": 53625
        },
        {
          "period": "2028-10",
          "depreciation": 4125,
          "accumulated": 99000,
          "residual": 49500
        },
        {
          "period": "2028-11",
          "depreciation": 4125,
          "accumulated": 103125,
          "residual": 45375
        },
        {
          "period": "2028-12",
          "depreciation": 4125,
          "accumulated": 107250,
          "residual": 41250
        },
        {
          "period": "2029-01",
          "depreciation": 4125,
          "accumulated": 111375,
          "residual": 37125
        },
        {
          "period": "2029-02",
          "depreciation": 4125,
          "accumulated": 115500,
          "residual": 33000
        },
        {
          "period": "2029-03",
          "depreciation": 4125,
          "accumulated": 119625,
          "residual": 28875
        },
        {
          "period": "2029-04",
          "depreciation": 4125,
          "accumulated": 123750,
          "residual": 24750
        },
        {
          "period": "2029-05",
          "depreciation": 4125,
          "accumulated": 127875,
          "residual": 20625
        },
        {
          "period": "2029-06",
          "depreciation": 4125,
          "accumulated": 132000,
          "residual": 16500
        },
        {
          "period": "2029-07",
          "depreciation": 4125,
          "accumulated": 136125,
          "residual": 12375
        },
        {
          "period": "2029-08",
          "depreciation": 4125,
          "accumulated": 140250,
          "residual": 8250
        },
        {
          "period": "2029-09",
          "depreciation": 4125,
          "accumulated": 144375,
          "residual": 4125
        },
        {
          "period": "2029-10",
          "depreciation": 4125,
          "accumulated": 148500,
          "residual": 0
        }
      ],
      "in_use_entry": null,
      "disposal": null,
      "created_at": "2026-12-03T06:53:05.817Z",
      "updated_at": "2026-12-03T06:53:05.817Z"
    }
  },
  "listAssets": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "name": "Laptops Lenovo T14, 5 pcs",
          "inventory_number": "HW-2026-014",
          "acquisition_cost": 148500,
          "date_acquired": "2026-10-02",
          "date_in_use": "2026-10-05",
          "accounting_depreciation": {
            "method": "straight_line",
            "months": 36
          },
          "tax_depreciation": {
            "group": 1,
            "method": "straight_line",
            "first_year_increase": 0,
            "interrupted_years": []
          },
          "asset_account": "022",
          "accumulated_account": "082",
          "expense_account": "551",
          "improvements": [],
          "bill_id": null,
          "status": "active",
          "cost": 148500,
          "accumulated_depreciation": 4125,
          "tax_plan": [
            {
              "year": 2026,
              "depreciation": 29700,
              "residual": 118800,
              "kind": "depreciation"
            },
            {
              "year": 2027,
              "depreciation": 59400,
              "residual": 59400,
              "kind": "depreciation"
            },
            {
              "year": 2028,
              "depreciation": 59400,
              "residual": 0,
              "kind": "depreciation"
            }
          ],
          "accounting_plan": [
            {
              "period": "2026-11",
              "depreciation": 4125,
              "accumulated": 4125,
              "residual": 144375
            },
            {
              "period": "2026-12",
              "depreciation": 4125,
              "accumulated": 8250,
              "residual": 140250
            },
            {
              "period": "2027-01",
              "depreciation": 4125,
              "accumulated": 12375,
              "residual": 136125
            },
            {
              "period": "2027-02",
              "depreciation": 4125,
              "accumulated": 16500,
              "residual": 132000
            },
            {
              "period": "2027-03",
              "depreciation": 4125,
              "accumulated": 20625,
              "residual": 127875
            },
            {
              "period": "2027-04",
              "depreciation": 4125,
              "accumulated": 24750,
              "residual": 123750
            },
            {
              "period": "2027-05",
              "depreciation": 4125,
              "accumulated": 28875,
              "residual": 119625
            },
            {
              "period": "2027-06",
              "depreciation": 4125,
              "accumulated": 33000,
              "residual": 115500
            },
            {
              "period": "2027-07",
              "depreciation": 4125,
              "accumulated": 37125,
              "residual": 111375
            },
            {
              "period": "2027-08",
              "depreciation": 4125,
              "accumulated": 41250,
              "residual": 107250
            },
            {
              "period": "2027-09",
              "depreciation": 4125,
              "accumulated": 45375,
              "residual": 103125
            },
            {
              "period": "2027-10",
              "depreciation": 4125,
              "accumulated": 49500,
              "residual": 99000
            },
            {
              "period": "2027-11",
              "depreciation": 4125,
              "accumulated": 53625,
              "residual": 94875
            },
            {
              "period": "2027-12",
              "depreciation": 4125,
              "accumulated": 57750,
              "residual": 90750
            },
            {
              "period": "2028-01",
              "depreciation": 4125,
              "accumulated": 61875,
              "residual": 86625
            },
            {
              "period": "2028-02",
              "depreciation": 4125,
              "accumulated": 66000,
              "residual": 82500
            },
            {
              "period": "2028-03",
              "depreciation": 4125,
              "accumulated": 70125,
              "residual": 78375
            },
            {
              "period": "2028-04",
              "depreciation": 4125,
              "accumulated": 74250,
              "residual": 74250
            },
            {
              "period": "2028-05",
              "depreciation": 4125,
              "accumulated": 78375,
              "residual": 70125
            },
            {
              "period": "2028-06",
              "depreciation": 4125,
              "accumulated": 82500,
              "residual": 66000
            },
            {
              "period": "2028-07",
              "depreciation": 4125,
              "accumulated": 86625,
              "residual": 61875
            },
            {
              "period": "2028-08",
              "depreciation": 4125,
              "accumulated": 90750,
              "residual": 57750
            },
            {
              "period": "2028-09",
              "depreciation": 4125,
              "accumulated": 94875,
              "residual": 53625
            },
            {
              "period": "2028-10",
              "depreciation": 4125,
              "accumulated": 99000,
              "residual": 49500
            },
            {
              "period": "2028-11",
              "depreciation": 4125,
              "accumulated": 103125,
              "residual": 45375
            },
            {
              "period": "2028-12",
              "depreciation": 4125,
              "accumulated": 107250,
              "residual": 41250
            },
            {
              "period": "2029-01",
              "depreciation": 4125,
              "accumulated": 111375,
              "residual": 37125
            },
            {
              "period": "2029-02",
              "depreciation": 4125,
              "accumulated": 115500,
              "residual": 33000
            },
            {
              "period": "2029-03",
              "depreciation": 4125,
              "accumulated": 119625,
              "residual": 28875
            },
            {
              "period": "2029-04",
              "depreciation": 4125,
              "accumulated": 123750,
              "residual": 24750
            },
            {
              "period": "2029-05",
              "depreciation": 4125,
              "accumulated": 127875,
              "residual": 20625
            },
            {
              "period": "2029-06",
              "depreciation": 4125,
              "accumulated": 132000,
              "residual": 16500
            },
            {
              "period": "2029-07",
              "depreciation": 4125,
              "accumulated": 136125,
              "residual": 12375
            },
            {
              "period": "2029-08",
              "depreciation": 4125,
              "accumulated": 140250,
              "residual": 8250
            },
            {
              "period": "2029-09",
              "depreciation": 4125,
              "accumulated": 144375,
              "residual": 4125
            },
            {
              "period": "2029-10",
              "depreciation": 4125,
              "accumulated": 148500,
              "residual": 0
            }
          ],
          "in_use_entry": null,
          "disposal": null,
          "created_at": "2026-12-03T06:53:05.817Z",
          "updated_at": "2026-12-03T06:53:05.817Z"
        },
        {
          "id": 2,
          "name": "Printer Canon iR C3226",
          "inventory_number": "HW-2026-015",
          "acquisition_cost": 62000,
          "date_acquired": "2026-10-02",
          "date_in_use": "2026-10-12",
          "accounting_depreciation": {
            "method": "straight_line",
            "months": 60
          },
          "tax_depreciation": {
            "group": 2,
            "method": "accelerated",
            "first_year_increase": 0,
            "interrupted_years": [
              2027
            ]
          },
          "asset_account": "022",
          "accumulated_account": "082",
          "expense_account": "551",
          "improvements": [
            {
              "date": "2026-11-25",
              "amount": 8500,
              "description": "Finisher unit"
            }
          ],
          "bill_id": null,
          "status": "active",
          "cost": 70500,
          "accumulated_depreciation": 1033.33,
          "tax_plan": [
            {
              "year": 2026,
              "depreciation": 14100,
              "residual": 56400,
              "kind": "depreciation"
            },
            {
              "year": 2027,
              "depreciation": 0,
              "residual": 56400,
              "kind": "interrupted"
            },
            {
              "year": 2028,
              "depreciation": 22560,
              "residual": 33840,
              "kind": "depreciation"
            },
            {
              "year": 2029,
              "depreciation": 16920,
              "residual": 16920,
              "kind": "depreciation"
            },
            {
              "year": 2030,
              "depreciation": 11280,
              "residual": 5640,
              "kind": "depreciation"
            },
            {
              "year": 2031,
              "depreciation": 5640,
              "residual": 0,
              "kind": "depreciation"
            }
          ],
          "accounting_plan": [
            {
              "period": "2026-11",
              "depreciation": 1033.33,
              "accumulated": 1033.33,
              "residual": 60966.67
            },
            {
              "period": "2026-12",
              "depreciation": 1177.4,
              "accumulated": 2210.73,
              "residual": 68289.27
            },
            {
              "period": "2027-01",
              "depreciation": 1177.4,
              "accumulated": 3388.13,
              "residual": 67111.87
            },
            {
              "period": "2027-02",
              "depreciation": 1177.4,
              "accumulated": 4565.53,
              "residual": 65934.47
            },
            {
              "period": "2027-03",
              "depreciation": 1177.4,
              "accumulated": 5742.93,
              "residual": 64757.07
            },
            {
              "period": "2027-04",
              "depreciation": 1177.4,
              "accumulated": 6920.33,
              "residual": 63579.67
            },
            {
              "period": "2027-05",
              "depreciation": 1177.4,
              "accumulated": 8097.73,
              "residual": 62402.27
            },
            {
              "period": "2027-06",
              "depreciation": 1177.4,
              "accumulated": 9275.13,
              "residual": 61224.87
            },
            {
              "period": "2027-07",
              "depreciation": 1177.4,
              "accumulated": 10452.53,
              "residual": 60047.47
            },
            {
              "period": "2027-08",
              "depreciation": 1177.4,
              "accumulated": 11629.93,
              "residual": 58870.07
            },
            {
              "period": "2027-09",
              "depreciation": 1177.4,
              "accumulated": 12807.33,
              "residual": 57692.67
            },
            {
              "period": "2027-10",
              "depreciation": 1177.4,
              "accumulated": 13984.73,
              "residual": 56515.27
            },
            {
              "period": "2027-11",
              "depreciation": 1177.4,
              "accumulated": 15162.13,
              "residual": 55337.87
            },
            {
              "period": "2027-12",
              "depreciation": 1177.4,
              "accumulated": 16339.53,
              "residual": 54160.47
            },
            {
              "period": "2028-01",
              "depreciation": 1177.4,
              "accumulated": 17516.93,
              "residual": 52983.07
            },
            {
              "period": "2028-02",
              "depreciation": 1177.4,
              "accumulated": 18694.33,
              "residual": 51805.67
            },
            {
              "period": "2028-03",
              "depreciation": 1177.4,
              "accumulated": 19871.73,
              "residual": 50628.27
            },
            {
              "period": "2028-04",
              "depreciation": 1177.4,
              "accumulated": 21049.13,
              "residual": 49450.87
            },
            {
              "period": "2028-05",
              "depreciation": 1177.4,
              "accumulated": 22226.53,
              "residual": 48273.47
            },
            {
              "period": "2028-06",
              "depreciation": 1177.4,
              "accumulated": 23403.93,
              "residual": 47096.07
            },
            {
              "period": "2028-07",
              "depreciation": 1177.4,
              "accumulated": 24581.33,
              "residual": 45918.67
            },
            {
              "period": "2028-08",
              "depreciation": 1177.4,
              "accumulated": 25758.73,
              "residual": 44741.27
            },
            {
              "period": "2028-09",
              "depreciation": 1177.4,
              "accumulated": 26936.13,
              "residual": 43563.87
            },
            {
              "period": "2028-10",
              "depreciation": 1177.4,
              "accumulated": 28113.53,
              "residual": 42386.47
            },
            {
              "period": "2028-11",
              "depreciation": 1177.4,
              "accumulated": 29290.93,
              "residual": 41209.07
            },
            {
              "period": "2028-12",
              "depreciation": 1177.4,
              "accumulated": 30468.33,
              "residual": 40031.67
            },
            {
              "period": "2029-01",
              "depreciation": 1177.4,
              "accumulated": 31645.73,
              "residual": 38854.27
            },
            {
              "period": "2029-02",
              "depreciation": 1177.4,
              "accumulated": 32823.13,
              "residual": 37676.87
            },
            {
              "period": "2029-03",
              "depreciation": 1177.4,
              "accumulated": 34000.53,
              "residual": 36499.47
            },
            {
              "period": "2029-04",
              "depreciation": 1177.4,
              "accumulated": 35177.93,
              "residual": 35322.07
            },
            {
              "period": "2029-05",
              "depreciation": 1177.4,
              "accumulated": 36355.33,
              "residual": 34144.67
            },
            {
              "period": "2029-06",
              "depreciation": 1177.4,
              "accumulated": 37532.73,
              "residual": 32967.27
            },
            {
              "period": "2029-07",
              "depreciation": 1177.4,
              "accumulated": 38710.13,
              "residual": 31789.87
            },
            {
              "period": "2029-08",
              "depreciation": 1177.4,
              "accumulated": 39887.53,
              "residual": 30612.47
            },
            {
              "period": "2029-09",
              "depreciation": 1177.4,
              "accumulated": 41064.93,
              "residual": 29435.07
            },
            {
              "period": "2029-10",
              "depreciation": 1177.4,
              "accumulated": 42242.33,
              "residual": 28257.67
            },
            {
              "period": "2029-11",
              "depreciation": 1177.4,
              "accumulated": 43419.73,
              "residual": 27080.27
            },
            {
              "period": "2029-12",
              "depreciation": 1177.4,
              "accumulated": 44597.13,
              "residual": 25902.87
            },
            {
              "period": "2030-01",
              "depreciation": 1177.4,
              "accumulated": 45774.53,
              "residual": 24725.47
            },
            {
              "period": "2030-02",
              "depreciation": 1177.4,
              "accumulated": 46951.93,
              "residual": 23548.07
            },
            {
              "period": "2030-03",
              "depreciation": 1177.4,
              "accumulated": 48129.33,
              "residual": 22370.67
            },
            {
              "period": "2030-04",
              "depreciation": 1177.4,
              "accumulated": 49306.73,
              "residual": 21193.27
            },
            {
              "period": "2030-05",
              "depreciation": 1177.4,
              "accumulated": 50484.13,
              "residual": 20015.87
            },
            {
              "period": "2030-06",
              "depreciation": 1177.4,
              "accumulated": 51661.53,
              "residual": 18838.47
            },
            {
              "period": "2030-07",
              "depreciation": 1177.4,
              "accumulated": 52838.93,
              "residual": 17661.07
            },
            {
              "period": "2030-08",
              "depreciation": 1177.4,
              "accumulated": 54016.33,
              "residual": 16483.67
            },
            {
              "period": "2030-09",
              "depreciation": 1177.4,
              "accumulated": 55193.73,
              "residual": 15306.27
            },
            {
              "period": "2030-10",
              "depreciation": 1177.4,
              "accumulated": 56371.13,
              "residual": 14128.87
            },
            {
              "period": "2030-11",
              "depreciation": 1177.4,
              "accumulated": 57548.53,
              "residual": 12951.47
            },
            {
              "period": "2030-12",
              "depreciation": 1177.4,
              "accumulated": 58725.93,
              "residual": 11774.07
            },
            {
              "period": "2031-01",
              "depreciation": 1177.4,
              "accumulated": 59903.33,
              "residual": 10596.67
            },
            {
              "period": "2031-02",
              "depreciation": 1177.4,
              "accumulated": 61080.73,
              "residual": 9419.27
            },
            {
              "period": "2031-03",
              "depreciation": 1177.4,
              "accumulated": 62258.13,
              "residual": 8241.87
            },
            {
              "period": "2031-04",
              "depreciation": 1177.4,
              "accumulated": 63435.53,
              "residual": 7064.47
            },
            {
              "period": "2031-05",
              "depreciation": 1177.4,
              "accumulated": 64612.93,
              "residual": 5887.07
            },
            {
              "period": "2031-06",
              "depreciation": 1177.4,
              "accumulated": 65790.33,
              "residual": 4709.67
            },
            {
              "period": "2031-07",
              "depreciation": 1177.4,
              "accumulated": 66967.73,
              "residual": 3532.27
            },
            {
              "period": "2031-08",
              "depreciation": 1177.4,
              "accumulated": 68145.13,
              "residual": 2354.87
            },
            {
              "period": "2031-09",
              "depreciation": 1177.4,
              "accumulated": 69322.53,
              "residual": 1177.47
            },
            {
              "period": "2031-10",
              "depreciation": 1177.47,
              "accumulated": 70500,
              "residual": 0
            }
          ],
          "in_use_entry": null,
          "disposal": null,
          "created_at": "2026-12-03T06:53:05.829Z",
          "updated_at": "2026-12-03T06:53:05.930Z"
        }
      ],
      "aggregations": []
    }
  },
  "getAsset": {
    "response": {
      "id": 1,
      "name": "Laptops Lenovo T14, 5 pcs",
      "inventory_number": "HW-2026-014",
      "acquisition_cost": 148500,
      "date_acquired": "2026-10-02",
      "date_in_use": "2026-10-05",
      "accounting_depreciation": {
        "method": "straight_line",
        "months": 36
      },
      "tax_depreciation": {
        "group": 1,
        "method": "straight_line",
        "first_year_increase": 0,
        "interrupted_years": []
      },
      "asset_account": "022",
      "accumulated_account": "082",
      "expense_account": "551",
      "improvements": [],
      "bill_id": null,
      "status": "active",
      "cost": 148500,
      "accumulated_depreciation": 0,
      "tax_plan": [
        {
          "year": 2026,
          "depreciation": 29700,
          "residual": 118800,
          "kind": "depreciation"
        },
        {
          "year": 2027,
          "depreciation": 59400,
          "residual": 59400,
          "kind": "depreciation"
        },
        {
          "year": 2028,
          "depreciation": 59400,
          "residual": 0,
          "kind": "depreciation"
        }
      ],
      "accounting_plan": [
        {
          "period": "2026-11",
          "depreciation": 4125,
          "accumulated": 4125,
          "residual": 144375
        },
        {
          "period": "2026-12",
          "depreciation": 4125,
          "accumulated": 8250,
          "residual": 140250
        },
        {
          "period": "2027-01",
          "depreciation": 4125,
          "accumulated": 12375,
          "residual": 136125
        },
        {
          "period": "2027-02",
          "depreciation": 4125,
          "accumulated": 16500,
          "residual": 132000
        },
        {
          "period": "2027-03",
          "depreciation": 4125,
          "accumulated": 20625,
          "residual": 127875
        },
        {
          "period": "2027-04",
          "depreciation": 4125,
          "accumulated": 24750,
          "residual": 123750
        },
        {
          "period": "2027-05",
          "depreciation": 4125,
          "accumulated": 28875,
          "residual": 119625
        },
        {
          "period": "2027-06",
          "depreciation": 4125,
          "accumulated": 33000,
          "residual": 115500
        },
        {
          "period": "2027-07",
          "depreciation": 4125,
          "accumulated": 37125,
          "residual": 111375
        },
        {
          "period": "2027-08",
          "depreciation": 4125,
          "accumulated": 41250,
          "residual": 107250
        },
        {
          "period": "2027-09",
          "depreciation": 4125,
          "accumulated": 45375,
          "residual": 103125
        },
        {
          "period": "2027-10",
          "depreciation": 4125,
          "accumulated": 49500,
          "residual": 99000
        },
        {
          "period": "2027-11",
          "depreciation": 4125,
          "accumulated": 53625,
          "residual": 94875
        },
        {
          "period": "2027-12",
          "depreciation": 4125,
          "accumulated": 57750,
          "residual": 90750
        },
        {
          "period": "2028-01",
          "depreciation": 4125,
          "accumulated": 61875,
          "residual": 86625
        },
        {
          "period": "2028-02",
          "depreciation": 4125,
          "accumulated": 66000,
          "residual": 82500
        },
        {
          "period": "2028-03",
          "depreciation": 4125,
          "accumulated": 70125,
          "residual": 78375
        },
        {
          "period": "2028-04",
          "depreciation": 4125,
          "accumulated": 74250,
          "residual": 74250
        },
        {
          "period": "2028-05",
          "depreciation": 4125,
          "accumulated": 78375,
          "residual": 70125
        },
        {
          "period": "2028-06",
          "depreciation": 4125,
          "accumulated": 82500,
          "residual": 66000
        },
        {
          "period": "2028-07",
          "depreciation": 4125,
          "accumulated": 86625,
          "residual": 61875
        },
        {
          "period": "2028-08",
          "depreciation": 4125,
          "accumulated": 90750,
          "residual": 57750
        },
        {
          "period": "2028-09",
          "depreciation": 4125,
          "accumulated": 94875,
          "residual": 53625
        },
        {
          "period": "2028-10",
          "depreciation": 4125,
          "accumulated": 99000,
          "residual": 49500
        },
        {
          "period": "2028-11",
          "depreciation": 4125,
          "accumulated": 103125,
          "residual": 45375
        },
        {
          "period": "2028-12",
          "depreciation": 4125,
          "accumulated": 107250,
          "residual": 41250
        },
        {
          "period": "2029-01",
          "depreciation": 4125,
          "accumulated": 111375,
          "residual": 37125
        },
        {
          "period": "2029-02",
          "depreciation": 4125,
          "accumulated": 115500,
          "residual": 33000
        },
        {
          "period": "2029-03",
          "depreciation": 4125,
          "accumulated": 119625,
          "residual": 28875
        },
        {
          "period": "2029-04",
          "depreciation": 4125,
          "accumulated": 123750,
          "residual": 24750
        },
        {
          "period": "2029-05",
          "depreciation": 4125,
          "accumulated": 127875,
          "residual": 20625
        },
        {
          "period": "2029-06",
          "depreciation": 4125,
          "accumulated": 132000,
          "residual": 16500
        },
        {
          "period": "2029-07",
          "depreciation": 4125,
          "accumulated": 136125,
          "residual": 12375
        },
        {
          "period": "2029-08",
          "depreciation": 4125,
          "accumulated": 140250,
          "residual": 8250
        },
        {
          "period": "2029-09",
          "depreciation": 4125,
          "accumulated": 144375,
          "residual": 4125
        },
        {
          "period": "2029-10",
          "depreciation": 4125,
          "accumulated": 148500,
          "residual": 0
        }
      ],
      "in_use_entry": null,
      "disposal": null,
      "created_at": "2026-12-03T06:53:05.817Z",
      "updated_at": "2026-12-03T06:53:05.817Z"
    }
  },
  "replaceAsset": {
    "request": {
      "date_acquired": "2026-10-02",
      "date_in_use": "2026-10-12",
      "accounting_depreciation": {
        "method": "straight_line",
        "months": 60
      },
      "tax_depreciation": {
        "group": 2,
        "method": "accelerated"
      },
      "name": "Printer Canon iR C3226",
      "inventory_number": "HW-2026-015",
      "acquisition_cost": 62000
    },
    "response": {
      "id": 2,
      "name": "Printer Canon iR C3226",
      "inventory_number": "HW-2026-015",
      "acquisition_cost": 62000,
      "date_acquired": "2026-10-02",
      "date_in_use": "2026-10-12",
      "accounting_depreciation": {
        "method": "straight_line",
        "months": 60
      },
      "tax_depreciation": {
        "group": 2,
        "method": "accelerated",
        "first_year_increase": 0,
        "interrupted_years": []
      },
      "asset_account": "022",
      "accumulated_account": "082",
      "expense_account": "551",
      "improvements": [],
      "bill_id": null,
      "status": "active",
      "cost": 62000,
      "accumulated_depreciation": 0,
      "tax_plan": [
        {
          "year": 2026,
          "depreciation": 12400,
          "residual": 49600,
          "kind": "depreciation"
        },
        {
          "year": 2027,
          "depreciation": 19840,
          "residual": 29760,
          "kind": "depreciation"
        },
        {
          "year": 2028,
          "depreciation": 14880,
          "residual": 14880,
          "kind": "depreciation"
        },
        {
          "year": 2029,
          "depreciation": 9920,
          "residual": 4960,
          "kind": "depreciation"
        },
        {
          "year": 2030,
          "depreciation": 4960,
          "residual": 0,
          "kind": "depreciation"
        }
      ],
      "accounting_plan": [
        {
          "period": "2026-11",
          "depreciation": 1033.33,
          "accumulated": 1033.33,
          "residual": 60966.67
        },
        {
          "period": "2026-12",
          "depreciation": 1033.33,
          "accumulated": 2066.66,
          "residual": 59933.34
        },
        {
          "period": "2027-01",
          "depreciation": 1033.33,
          "accumulated": 3099.99,
          "residual": 58900.01
        },
        {
          "period": "2027-02",
          "depreciation": 1033.33,
          "accumulated": 4133.32,
          "residual": 57866.68
        },
        {
          "period": "2027-03",
          "depreciation": 1033.33,
          "accumulated": 5166.65,
          "residual": 56833.35
        },
        {
          "period": "2027-04",
          "depreciation": 1033.33,
          "accumulated": 6199.98,
          "residual": 55800.02
        },
        {
          "period": "2027-05",
          "depreciation": 1033.33,
          "accumulated": 7233.31,
          "residual": 54766.69
        },
        {
          "period": "2027-06",
          "depreciation": 1033.33,
          "accumulated": 8266.64,
          "residual": 53733.36
        },
        {
          "period": "2027-07",
          "depreciation": 1033.33,
          "accumulated": 9299.97,
          "residual": 52700.03
        },
        {
          "period": "2027-08",
          "depreciation": 1033.33,
          "accumulated": 10333.3,
          "residual": 51666.7
        },
        {
          "period": "2027-09",
          "depreciation": 1033.33,
          "accumulated": 11366.63,
          "residual": 50633.37
        },
        {
          "period": "2027-10",
          "depreciation": 1033.33,
          "accumulated": 12399.96,
          "residual": 49600.04
        },
        {
          "period": "2027-11",
          "depreciation": 1033.33,
          "accumulated": 13433.29,
          "residual": 48566.71
        },
        {
          "period": "2027-12",
          "depreciation": 1033.33,
          "accumulated": 14466.62,
          "residual": 47533.38
        },
        {
          "period": "2028-01",
          "depreciation": 1033.33,
          "accumulated": 15499.95,
          "residual": 46500.05
        },
        {
          "period": "2028-02",
          "depreciation": 1033.33,
          "accumulated": 16533.28,
          "residual": 45466.72
        },
        {
          "period": "2028-03",
          "depreciation": 1033.33,
          "accumulated": 17566.61,
          "residual": 44433.39
        },
        {
          "period": "2028-04",
          "depreciation": 1033.33,
          "accumulated": 18599.94,
          "residual": 43400.06
        },
        {
          "period": "2028-05",
          "depreciation": 1033.33,
          "accumulated": 19633.27,
          "residual": 42366.73
        },
        {
          "period": "2028-06",
          "depreciation": 1033.33,
          "accumulated": 20666.6,
          "residual": 41333.4
        },
        {
          "period": "2028-07",
          "depreciation": 1033.33,
          "accumulated": 21699.93,
          "residual": 40300.07
        },
        {
          "period": "2028-08",
          "depreciation": 1033.33,
          "accumulated": 22733.26,
          "residual": 39266.74
        },
        {
          "period": "2028-09",
          "depreciation": 1033.33,
          "accumulated": 23766.59,
          "residual": 38233.41
        },
        {
          "period": "2028-10",
          "depreciation": 1033.33,
          "accumulated": 24799.92,
          "residual": 37200.08
        },
        {
          "period": "2028-11",
          "depreciation": 1033.33,
          "accumulated": 25833.25,
          "residual": 36166.75
        },
        {
          "period": "2028-12",
          "depreciation": 1033.33,
          "accumulated": 26866.58,
          "residual": 35133.42
        },
        {
          "period": "2029-01",
          "depreciation": 1033.33,
          "accumulated": 27899.91,
          "residual": 34100.09
        },
        {
          "period": "2029-02",
          "depreciation": 1033.33,
          "accumulated": 28933.24,
          "residual": 33066.76
        },
        {
          "period": "2029-03",
          "depreciation": 1033.33,
          "accumulated": 29966.57,
          "residual": 32033.43
        },
        {
          "period": "2029-04",
          "depreciation": 1033.33,
          "accumulated": 30999.9,
          "residual": 31000.1
        },
        {
          "period": "2029-05",
          "depreciation": 1033.33,
          "accumulated": 32033.23,
          "residual": 29966.77
        },
        {
          "period": "2029-06",
          "depreciation": 1033.33,
          "accumulated": 33066.56,
          "residual": 28933.44
        },
        {
          "period": "2029-07",
          "depreciation": 1033.33,
          "accumulated": 34099.89,
          "residual": 27900.11
        },
        {
          "period": "2029-08",
          "depreciation": 1033.33,
          "accumulated": 35133.22,
          "residual": 26866.78
        },
        {
          "period": "2029-09",
          "depreciation": 1033.33,
          "accumulated": 36166.55,
          "residual": 25833.45
        },
        {
          "period": "2029-10",
          "depreciation": 1033.33,
          "accumulated": 37199.88,
          "residual": 24800.12
        },
        {
          "period": "2029-11",
          "depreciation": 1033.33,
          "accumulated": 38233.21,
          "residual": 23766.79
        },
        {
          "period": "2029-12",
          "depreciation": 1033.33,
          "accumulated": 39266.54,
          "residual": 22733.46
        },
        {
          "period": "2030-01",
          "depreciation": 1033.33,
          "accumulated": 40299.87,
          "residual": 21700.13
        },
        {
          "period": "2030-02",
          "depreciation": 1033.33,
          "accumulated": 41333.2,
          "residual": 20666.8
        },
        {
          "period": "2030-03",
          "depreciation": 1033.33,
          "accumulated": 42366.53,
          "residual": 19633.47
        },
        {
          "period": "2030-04",
          "depreciation": 1033.33,
          "accumulated": 43399.86,
          "residual": 18600.14
        },
        {
          "period": "2030-05",
          "depreciation": 1033.33,
          "accumulated": 44433.19,
          "residual": 17566.81
        },
        {
          "period": "2030-06",
          "depreciation": 1033.33,
          "accumulated": 45466.52,
          "residual": 16533.48
        },
        {
          "period": "2030-07",
          "depreciation": 1033.33,
          "accumulated": 46499.85,
          "residual": 15500.15
        },
        {
          "period": "2030-08",
          "depreciation": 1033.33,
          "accumulated": 47533.18,
          "residual": 14466.82
        },
        {
          "period": "2030-09",
          "depreciation": 1033.33,
          "accumulated": 48566.51,
          "residual": 13433.49
        },
        {
          "period": "2030-10",
          "depreciation": 1033.33,
          "accumulated": 49599.84,
          "residual": 12400.16
        },
        {
          "period": "2030-11",
          "depreciation": 1033.33,
          "accumulated": 50633.17,
          "residual": 11366.83
        },
        {
          "period": "2030-12",
          "depreciation": 1033.33,
          "accumulated": 51666.5,
          "residual": 10333.5
        },
        {
          "period": "2031-01",
          "depreciation": 1033.33,
          "accumulated": 52699.83,
          "residual": 9300.17
        },
        {
          "period": "2031-02",
          "depreciation": 1033.33,
          "accumulated": 53733.16,
          "residual": 8266.84
        },
        {
          "period": "2031-03",
          "depreciation": 1033.33,
          "accumulated": 54766.49,
          "residual": 7233.51
        },
        {
          "period": "2031-04",
          "depreciation": 1033.33,
          "accumulated": 55799.82,
          "residual": 6200.18
        },
        {
          "period": "2031-05",
          "depreciation": 1033.33,
          "accumulated": 56833.15,
          "residual": 5166.85
        },
        {
          "period": "2031-06",
          "depreciation": 1033.33,
          "accumulated": 57866.48,
          "residual": 4133.52
        },
        {
          "period": "2031-07",
          "depreciation": 1033.33,
          "accumulated": 58899.81,
          "residual": 3100.19
        },
        {
          "period": "2031-08",
          "depreciation": 1033.33,
          "accumulated": 59933.14,
          "residual": 2066.86
        },
        {
          "period": "2031-09",
          "depreciation": 1033.33,
          "accumulated": 60966.47,
          "residual": 1033.53
        },
        {
          "period": "2031-10",
          "depreciation": 1033.53,
          "accumulated": 62000,
          "residual": 0
        }
      ],
      "in_use_entry": null,
      "disposal": null,
      "created_at": "2026-12-03T06:53:05.829Z",
      "updated_at": "2026-12-03T06:53:05.846Z"
    }
  },
  "improveAsset": {
    "request": {
      "date": "2026-11-25",
      "amount": 8500,
      "description": "Finisher unit"
    },
    "response": {
      "id": 2,
      "name": "Printer Canon iR C3226",
      "inventory_number": "HW-2026-015",
      "acquisition_cost": 62000,
      "date_acquired": "2026-10-02",
      "date_in_use": "2026-10-12",
      "accounting_depreciation": {
        "method": "straight_line",
        "months": 60
      },
      "tax_depreciation": {
        "group": 2,
        "method": "accelerated",
        "first_year_increase": 0,
        "interrupted_years": []
      },
      "asset_account": "022",
      "accumulated_account": "082",
      "expense_account": "551",
      "improvements": [
        {
          "date": "2026-11-25",
          "amount": 8500,
          "description": "Finisher unit"
        }
      ],
      "bill_id": null,
      "status": "active",
      "cost": 70500,
      "accumulated_depreciation": 1033.33,
      "tax_plan": [
        {
          "year": 2026,
          "depreciation": 14100,
          "residual": 56400,
          "kind": "depreciation"
        },
        {
          "year": 2027,
          "depreciation": 22560,
          "residual": 33840,
          "kind": "depreciation"
        },
        {
          "year": 2028,
          "depreciation": 16920,
          "residual": 16920,
          "kind": "depreciation"
        },
        {
          "year": 2029,
          "depreciation": 11280,
          "residual": 5640,
          "kind": "depreciation"
        },
        {
          "year": 2030,
          "depreciation": 5640,
          "residual": 0,
          "kind": "depreciation"
        }
      ],
      "accounting_plan": [
        {
          "period": "2026-11",
          "depreciation": 1033.33,
          "accumulated": 1033.33,
          "residual": 60966.67
        },
        {
          "period": "2026-12",
          "depreciation": 1177.4,
          "accumulated": 2210.73,
          "residual": 68289.27
        },
        {
          "period": "2027-01",
          "depreciation": 1177.4,
          "accumulated": 3388.13,
          "residual": 67111.87
        },
        {
          "period": "2027-02",
          "depreciation": 1177.4,
          "accumulated": 4565.53,
          "residual": 65934.47
        },
        {
          "period": "2027-03",
          "depreciation": 1177.4,
          "accumulated": 5742.93,
          "residual": 64757.07
        },
        {
          "period": "2027-04",
          "depreciation": 1177.4,
          "accumulated": 6920.33,
          "residual": 63579.67
        },
        {
          "period": "2027-05",
          "depreciation": 1177.4,
          "accumulated": 8097.73,
          "residual": 62402.27
        },
        {
          "period": "2027-06",
          "depreciation": 1177.4,
          "accumulated": 9275.13,
          "residual": 61224.87
        },
        {
          "period": "2027-07",
          "depreciation": 1177.4,
          "accumulated": 10452.53,
          "residual": 60047.47
        },
        {
          "period": "2027-08",
          "depreciation": 1177.4,
          "accumulated": 11629.93,
          "residual": 58870.07
        },
        {
          "period": "2027-09",
          "depreciation": 1177.4,
          "accumulated": 12807.33,
          "residual": 57692.67
        },
        {
          "period": "2027-10",
          "depreciation": 1177.4,
          "accumulated": 13984.73,
          "residual": 56515.27
        },
        {
          "period": "2027-11",
          "depreciation": 1177.4,
          "accumulated": 15162.13,
          "residual": 55337.87
        },
        {
          "period": "2027-12",
          "depreciation": 1177.4,
          "accumulated": 16339.53,
          "residual": 54160.47
        },
        {
          "period": "2028-01",
          "depreciation": 1177.4,
          "accumulated": 17516.93,
          "residual": 52983.07
        },
        {
          "period": "2028-02",
          "depreciation": 1177.4,
          "accumulated": 18694.33,
          "residual": 51805.67
        },
        {
          "period": "2028-03",
          "depreciation": 1177.4,
          "accumulated": 19871.73,
          "residual": 50628.27
        },
        {
          "period": "2028-04",
          "depreciation": 1177.4,
          "accumulated": 21049.13,
          "residual": 49450.87
        },
        {
          "period": "2028-05",
          "depreciation": 1177.4,
          "accumulated": 22226.53,
          "residual": 48273.47
        },
        {
          "period": "2028-06",
          "depreciation": 1177.4,
          "accumulated": 23403.93,
          "residual": 47096.07
        },
        {
          "period": "2028-07",
          "depreciation": 1177.4,
          "accumulated": 24581.33,
          "residual": 45918.67
        },
        {
          "period": "2028-08",
          "depreciation": 1177.4,
          "accumulated": 25758.73,
          "residual": 44741.27
        },
        {
          "period": "2028-09",
          "depreciation": 1177.4,
          "accumulated": 26936.13,
          "residual": 43563.87
        },
        {
          "period": "2028-10",
          "depreciation": 1177.4,
          "accumulated": 28113.53,
          "residual": 42386.47
        },
        {
          "period": "2028-11",
          "depreciation": 1177.4,
          "accumulated": 29290.93,
          "residual": 41209.07
        },
        {
          "period": "2028-12",
          "depreciation": 1177.4,
          "accumulated": 30468.33,
          "residual": 40031.67
        },
        {
          "period": "2029-01",
          "depreciation": 1177.4,
          "accumulated": 31645.73,
          "residual": 38854.27
        },
        {
          "period": "2029-02",
          "depreciation": 1177.4,
          "accumulated": 32823.13,
          "residual": 37676.87
        },
        {
          "period": "2029-03",
          "depreciation": 1177.4,
          "accumulated": 34000.53,
          "residual": 36499.47
        },
        {
          "period": "2029-04",
          "depreciation": 1177.4,
          "accumulated": 35177.93,
          "residual": 35322.07
        },
        {
          "period": "2029-05",
          "depreciation": 1177.4,
          "accumulated": 36355.33,
          "residual": 34144.67
        },
        {
          "period": "2029-06",
          "depreciation": 1177.4,
          "accumulated": 37532.73,
          "residual": 32967.27
        },
        {
          "period": "2029-07",
          "depreciation": 1177.4,
          "accumulated": 38710.13,
          "residual": 31789.87
        },
        {
          "period": "2029-08",
          "depreciation": 1177.4,
          "accumulated": 39887.53,
          "residual": 30612.47
        },
        {
          "period": "2029-09",
          "depreciation": 1177.4,
          "accumulated": 41064.93,
          "residual": 29435.07
        },
        {
          "period": "2029-10",
          "depreciation": 1177.4,
          "accumulated": 42242.33,
          "residual": 28257.67
        },
        {
          "period": "2029-11",
          "depreciation": 1177.4,
          "accumulated": 43419.73,
          "residual": 27080.27
        },
        {
          "period": "2029-12",
          "depreciation": 1177.4,
          "accumulated": 44597.13,
          "residual": 25902.87
        },
        {
          "period": "2030-01",
          "depreciation": 1177.4,
          "accumulated": 45774.53,
          "residual": 24725.47
        },
        {
          "period": "2030-02",
          "depreciation": 1177.4,
          "accumulated": 46951.93,
          "residual": 23548.07
        },
        {
          "period": "2030-03",
          "depreciation": 1177.4,
          "accumulated": 48129.33,
          "residual": 22370.67
        },
        {
          "period": "2030-04",
          "depreciation": 1177.4,
          "accumulated": 49306.73,
          "residual": 21193.27
        },
        {
          "period": "2030-05",
          "depreciation": 1177.4,
          "accumulated": 50484.13,
          "residual": 20015.87
        },
        {
          "period": "2030-06",
          "depreciation": 1177.4,
          "accumulated": 51661.53,
          "residual": 18838.47
        },
        {
          "period": "2030-07",
          "depreciation": 1177.4,
          "accumulated": 52838.93,
          "residual": 17661.07
        },
        {
          "period": "2030-08",
          "depreciation": 1177.4,
          "accumulated": 54016.33,
          "residual": 16483.67
        },
        {
          "period": "2030-09",
          "depreciation": 1177.4,
          "accumulated": 55193.73,
          "residual": 15306.27
        },
        {
          "period": "2030-10",
          "depreciation": 1177.4,
          "accumulated": 56371.13,
          "residual": 14128.87
        },
        {
          "period": "2030-11",
          "depreciation": 1177.4,
          "accumulated": 57548.53,
          "residual": 12951.47
        },
        {
          "period": "2030-12",
          "depreciation": 1177.4,
          "accumulated": 58725.93,
          "residual": 11774.07
        },
        {
          "period": "2031-01",
          "depreciation": 1177.4,
          "accumulated": 59903.33,
          "residual": 10596.67
        },
        {
          "period": "2031-02",
          "depreciation": 1177.4,
          "accumulated": 61080.73,
          "residual": 9419.27
        },
        {
          "period": "2031-03",
          "depreciation": 1177.4,
          "accumulated": 62258.13,
          "residual": 8241.87
        },
        {
          "period": "2031-04",
          "depreciation": 1177.4,
          "accumulated": 63435.53,
          "residual": 7064.47
        },
        {
          "period": "2031-05",
          "depreciation": 1177.4,
          "accumulated": 64612.93,
          "residual": 5887.07
        },
        {
          "period": "2031-06",
          "depreciation": 1177.4,
          "accumulated": 65790.33,
          "residual": 4709.67
        },
        {
          "period": "2031-07",
          "depreciation": 1177.4,
          "accumulated": 66967.73,
          "residual": 3532.27
        },
        {
          "period": "2031-08",
          "depreciation": 1177.4,
          "accumulated": 68145.13,
          "residual": 2354.87
        },
        {
          "period": "2031-09",
          "depreciation": 1177.4,
          "accumulated": 69322.53,
          "residual": 1177.47
        },
        {
          "period": "2031-10",
          "depreciation": 1177.47,
          "accumulated": 70500,
          "residual": 0
        }
      ],
      "in_use_entry": null,
      "disposal": null,
      "created_at": "2026-12-03T06:53:05.829Z",
      "updated_at": "2026-12-03T06:53:05.909Z"
    }
  },
  "setAssetTaxInterruptions": {
    "request": {
      "years": [
        2027
      ]
    },
    "response": {
      "id": 2,
      "name": "Printer Canon iR C3226",
      "inventory_number": "HW-2026-015",
      "acquisition_cost": 62000,
      "date_acquired": "2026-10-02",
      "date_in_use": "2026-10-12",
      "accounting_depreciation": {
        "method": "straight_line",
        "months": 60
      },
      "tax_depreciation": {
        "group": 2,
        "method": "accelerated",
        "first_year_increase": 0,
        "interrupted_years": [
          2027
        ]
      },
      "asset_account": "022",
      "accumulated_account": "082",
      "expense_account": "551",
      "improvements": [
        {
          "date": "2026-11-25",
          "amount": 8500,
          "description": "Finisher unit"
        }
      ],
      "bill_id": null,
      "status": "active",
      "cost": 70500,
      "accumulated_depreciation": 1033.33,
      "tax_plan": [
        {
          "year": 2026,
          "depreciation": 14100,
          "residual": 56400,
          "kind": "depreciation"
        },
        {
          "year": 2027,
          "depreciation": 0,
          "residual": 56400,
          "kind": "interrupted"
        },
        {
          "year": 2028,
          "depreciation": 22560,
          "residual": 33840,
          "kind": "depreciation"
        },
        {
          "year": 2029,
          "depreciation": 16920,
          "residual": 16920,
          "kind": "depreciation"
        },
        {
          "year": 2030,
          "depreciation": 11280,
          "residual": 5640,
          "kind": "depreciation"
        },
        {
          "year": 2031,
          "depreciation": 5640,
          "residual": 0,
          "kind": "depreciation"
        }
      ],
      "accounting_plan": [
        {
          "period": "2026-11",
          "depreciation": 1033.33,
          "accumulated": 1033.33,
          "residual": 60966.67
        },
        {
          "period": "2026-12",
          "depreciation": 1177.4,
          "accumulated": 2210.73,
          "residual": 68289.27
        },
        {
          "period": "2027-01",
          "depreciation": 1177.4,
          "accumulated": 3388.13,
          "residual": 67111.87
        },
        {
          "period": "2027-02",
          "depreciation": 1177.4,
          "accumulated": 4565.53,
          "residual": 65934.47
        },
        {
          "period": "2027-03",
          "depreciation": 1177.4,
          "accumulated": 5742.93,
          "residual": 64757.07
        },
        {
          "period": "2027-04",
          "depreciation": 1177.4,
          "accumulated": 6920.33,
          "residual": 63579.67
        },
        {
          "period": "2027-05",
          "depreciation": 1177.4,
          "accumulated": 8097.73,
          "residual": 62402.27
        },
        {
          "period": "2027-06",
          "depreciation": 1177.4,
          "accumulated": 9275.13,
          "residual": 61224.87
        },
        {
          "period": "2027-07",
          "depreciation": 1177.4,
          "accumulated": 10452.53,
          "residual": 60047.47
        },
        {
          "period": "2027-08",
          "depreciation": 1177.4,
          "accumulated": 11629.93,
          "residual": 58870.07
        },
        {
          "period": "2027-09",
          "depreciation": 1177.4,
          "accumulated": 12807.33,
          "residual": 57692.67
        },
        {
          "period": "2027-10",
          "depreciation": 1177.4,
          "accumulated": 13984.73,
          "residual": 56515.27
        },
        {
          "period": "2027-11",
          "depreciation": 1177.4,
          "accumulated": 15162.13,
          "residual": 55337.87
        },
        {
          "period": "2027-12",
          "depreciation": 1177.4,
          "accumulated": 16339.53,
          "residual": 54160.47
        },
        {
          "period": "2028-01",
          "depreciation": 1177.4,
          "accumulated": 17516.93,
          "residual": 52983.07
        },
        {
          "period": "2028-02",
          "depreciation": 1177.4,
          "accumulated": 18694.33,
          "residual": 51805.67
        },
        {
          "period": "2028-03",
          "depreciation": 1177.4,
          "accumulated": 19871.73,
          "residual": 50628.27
        },
        {
          "period": "2028-04",
          "depreciation": 1177.4,
          "accumulated": 21049.13,
          "residual": 49450.87
        },
        {
          "period": "2028-05",
          "depreciation": 1177.4,
          "accumulated": 22226.53,
          "residual": 48273.47
        },
        {
          "period": "2028-06",
          "depreciation": 1177.4,
          "accumulated": 23403.93,
          "residual": 47096.07
        },
        {
          "period": "2028-07",
          "depreciation": 1177.4,
          "accumulated": 24581.33,
          "residual": 45918.67
        },
        {
          "period": "2028-08",
          "depreciation": 1177.4,
          "accumulated": 25758.73,
          "residual": 44741.27
        },
        {
          "period": "2028-09",
          "depreciation": 1177.4,
          "accumulated": 26936.13,
          "residual": 43563.87
        },
        {
          "period": "2028-10",
          "depreciation": 1177.4,
          "accumulated": 28113.53,
          "residual": 42386.47
        },
        {
          "period": "2028-11",
          "depreciation": 1177.4,
          "accumulated": 29290.93,
          "residual": 41209.07
        },
        {
          "period": "2028-12",
          "depreciation": 1177.4,
          "accumulated": 30468.33,
          "residual": 40031.67
        },
        {
          "period": "2029-01",
          "depreciation": 1177.4,
          "accumulated": 31645.73,
          "residual": 38854.27
        },
        {
          "period": "2029-02",
          "depreciation": 1177.4,
          "accumulated": 32823.13,
          "residual": 37676.87
        },
        {
          "period": "2029-03",
          "depreciation": 1177.4,
          "accumulated": 34000.53,
          "residual": 36499.47
        },
        {
          "period": "2029-04",
          "depreciation": 1177.4,
          "accumulated": 35177.93,
          "residual": 35322.07
        },
        {
          "period": "2029-05",
          "depreciation": 1177.4,
          "accumulated": 36355.33,
          "residual": 34144.67
        },
        {
          "period": "2029-06",
          "depreciation": 1177.4,
          "accumulated": 37532.73,
          "residual": 32967.27
        },
        {
          "period": "2029-07",
          "depreciation": 1177.4,
          "accumulated": 38710.13,
          "residual": 31789.87
        },
        {
          "period": "2029-08",
          "depreciation": 1177.4,
          "accumulated": 39887.53,
          "residual": 30612.47
        },
        {
          "period": "2029-09",
          "depreciation": 1177.4,
          "accumulated": 41064.93,
          "residual": 29435.07
        },
        {
          "period": "2029-10",
          "depreciation": 1177.4,
          "accumulated": 42242.33,
          "residual": 28257.67
        },
        {
          "period": "2029-11",
          "depreciation": 1177.4,
          "accumulated": 43419.73,
          "residual": 27080.27
        },
        {
          "period": "2029-12",
          "depreciation": 1177.4,
          "accumulated": 44597.13,
          "residual": 25902.87
        },
        {
          "period": "2030-01",
          "depreciation": 1177.4,
          "accumulated": 45774.53,
          "residual": 24725.47
        },
        {
          "period": "2030-02",
          "depreciation": 1177.4,
          "accumulated": 46951.93,
          "residual": 23548.07
        },
        {
          "period": "2030-03",
          "depreciation": 1177.4,
          "accumulated": 48129.33,
          "residual": 22370.67
        },
        {
          "period": "2030-04",
          "depreciation": 1177.4,
          "accumulated": 49306.73,
          "residual": 21193.27
        },
        {
          "period": "2030-05",
          "depreciation": 1177.4,
          "accumulated": 50484.13,
          "residual": 20015.87
        },
        {
          "period": "2030-06",
          "depreciation": 1177.4,
          "accumulated": 51661.53,
          "residual": 18838.47
        },
        {
          "period": "2030-07",
          "depreciation": 1177.4,
          "accumulated": 52838.93,
          "residual": 17661.07
        },
        {
          "period": "2030-08",
          "depreciation": 1177.4,
          "accumulated": 54016.33,
          "residual": 16483.67
        },
        {
          "period": "2030-09",
          "depreciation": 1177.4,
          "accumulated": 55193.73,
          "residual": 15306.27
        },
        {
          "period": "2030-10",
          "depreciation": 1177.4,
          "accumulated": 56371.13,
          "residual": 14128.87
        },
        {
          "period": "2030-11",
          "depreciation": 1177.4,
          "accumulated": 57548.53,
          "residual": 12951.47
        },
        {
          "period": "2030-12",
          "depreciation": 1177.4,
          "accumulated": 58725.93,
          "residual": 11774.07
        },
        {
          "period": "2031-01",
          "depreciation": 1177.4,
          "accumulated": 59903.33,
          "residual": 10596.67
        },
        {
          "period": "2031-02",
          "depreciation": 1177.4,
          "accumulated": 61080.73,
          "residual": 9419.27
        },
        {
          "period": "2031-03",
          "depreciation": 1177.4,
          "accumulated": 62258.13,
          "residual": 8241.87
        },
        {
          "period": "2031-04",
          "depreciation": 1177.4,
          "accumulated": 63435.53,
          "residual": 7064.47
        },
        {
          "period": "2031-05",
          "depreciation": 1177.4,
          "accumulated": 64612.93,
          "residual": 5887.07
        },
        {
          "period": "2031-06",
          "depreciation": 1177.4,
          "accumulated": 65790.33,
          "residual": 4709.67
        },
        {
          "period": "2031-07",
          "depreciation": 1177.4,
          "accumulated": 66967.73,
          "residual": 3532.27
        },
        {
          "period": "2031-08",
          "depreciation": 1177.4,
          "accumulated": 68145.13,
          "residual": 2354.87
        },
        {
          "period": "2031-09",
          "depreciation": 1177.4,
          "accumulated": 69322.53,
          "residual": 1177.47
        },
        {
          "period": "2031-10",
          "depreciation": 1177.47,
          "accumulated": 70500,
          "residual": 0
        }
      ],
      "in_use_entry": null,
      "disposal": null,
      "created_at": "2026-12-03T06:53:05.829Z",
      "updated_at": "2026-12-03T06:53:05.930Z"
    }
  },
  "disposeAsset": {
    "request": {
      "date": "2026-12-10",
      "kind": "sale"
    },
    "response": {
      "id": 3,
      "name": "Copier Xerox B7025 (used)",
      "inventory_number": "HW-2026-016",
      "acquisition_cost": 24000,
      "date_acquired": "2026-10-02",
      "date_in_use": "2026-10-05",
      "accounting_depreciation": {
        "method": "straight_line",
        "months": 36
      },
      "tax_depreciation": {
        "group": 2,
        "method": "straight_line",
        "first_year_increase": 0,
        "interrupted_years": []
      },
      "asset_account": "022",
      "accumulated_account": "082",
      "expense_account": "551",
      "improvements": [],
      "bill_id": null,
      "status": "disposed",
      "cost": 24000,
      "accumulated_depreciation": 666.67,
      "tax_plan": [
        {
          "year": 2026,
          "depreciation": 1320,
          "residual": 22680,
          "kind": "disposal"
        }
      ],
      "accounting_plan": [
        {
          "period": "2026-11",
          "depreciation": 666.67,
          "accumulated": 666.67,
          "residual": 23333.33
        }
      ],
      "in_use_entry": null,
      "disposal": {
        "date": "2026-12-10",
        "kind": "sale",
        "residual": 23333.33,
        "tax_residual": 22680,
        "journal_entry": {
          "id": 7,
          "no": "JE-2026-0005"
        }
      },
      "created_at": "2026-12-03T06:53:05.861Z",
      "updated_at": "2026-12-03T06:53:05.947Z"
    }
  },
  "createDepreciationRun": {
    "request": {
      "period": "2026-11"
    },
    "response": {
      "id": 1,
      "period": "2026-11",
      "total": 5825,
      "journal_entry": {
        "id": 6,
        "no": "JE-2026-0004"
      },
      "lines": [
        {
          "asset_id": 1,
          "inventory_number": "HW-2026-014",
          "amount": 4125
        },
        {
          "asset_id": 2,
          "inventory_number": "HW-2026-015",
          "amount": 1033.33
        },
        {
          "asset_id": 3,
          "inventory_number": "HW-2026-016",
          "amount": 666.67
        }
      ],
      "created_at": "2026-12-03T06:53:05.889Z"
    }
  },
  "listDepreciationRuns": {
    "response": {
      "total": 1,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "id": 1,
          "period": "2026-11",
          "total": 5825,
          "journal_entry": {
            "id": 6,
            "no": "JE-2026-0004"
          },
          "lines": [
            {
              "asset_id": 1,
              "inventory_number": "HW-2026-014",
              "amount": 4125
            },
            {
              "asset_id": 2,
              "inventory_number": "HW-2026-015",
              "amount": 1033.33
            },
            {
              "asset_id": 3,
              "inventory_number": "HW-2026-016",
              "amount": 666.67
            }
          ],
          "created_at": "2026-12-03T06:53:05.889Z"
        }
      ],
      "aggregations": []
    }
  },
  "getDepreciationReport": {
    "response": {
      "year": 2026,
      "rows": [
        {
          "asset_id": 1,
          "inventory_number": "HW-2026-014",
          "name": "Laptops Lenovo T14, 5 pcs",
          "tax_depreciation": 29700,
          "tax_residual_expensed": 0,
          "accounting_depreciation": 4125,
          "accounting_residual_expensed": 0,
          "difference": -25575
        },
        {
          "asset_id": 2,
          "inventory_number": "HW-2026-015",
          "name": "Printer Canon iR C3226",
          "tax_depreciation": 14100,
          "tax_residual_expensed": 0,
          "accounting_depreciation": 1033.33,
          "accounting_residual_expensed": 0,
          "difference": -13066.67
        },
        {
          "asset_id": 3,
          "inventory_number": "HW-2026-016",
          "name": "Copier Xerox B7025 (used)",
          "tax_depreciation": 1320,
          "tax_residual_expensed": 22680,
          "accounting_depreciation": 666.67,
          "accounting_residual_expensed": 23333.33,
          "difference": 0
        }
      ],
      "totals": {
        "tax_depreciation": 45120,
        "tax_residual_expensed": 22680,
        "accounting_depreciation": 5825,
        "accounting_residual_expensed": 23333.33,
        "difference": -38641.67
      }
    }
  },
  "closeYear": {
    "request": {
      "year": 2025
    },
    "response": {
      "year": 2025,
      "status": "closed",
      "date_posting": "2025-12-31",
      "currency": "CZK",
      "revenue": 50000,
      "expenses": 8400,
      "profit": 41600,
      "journal_entry": {
        "id": 10,
        "no": "JE-2025-0003"
      },
      "reopened_by": null,
      "created_at": "2026-12-03T06:53:06.084Z",
      "created_by": "key:2"
    }
  },
  "listYearEndClosings": {
    "response": {
      "total": 2,
      "from": 0,
      "take": 100,
      "entities": [
        {
          "year": 2025,
          "status": "closed",
          "date_posting": "2025-12-31",
          "currency": "CZK",
          "revenue": 50000,
          "expenses": 8400,
          "profit": 41600,
          "journal_entry": {
            "id": 12,
            "no": "JE-2025-0005"
          },
          "reopened_by": null,
          "created_at": "2026-12-03T06:53:06.115Z",
          "created_by": "key:2"
        },
        {
          "year": 2025,
          "status": "reopened",
          "date_posting": "2025-12-31",
          "currency": "CZK",
          "revenue": 50000,
          "expenses": 8400,
          "profit": 41600,
          "journal_entry": {
            "id": 10,
            "no": "JE-2025-0003"
          },
          "reopened_by": {
            "id": 11,
            "no": "JE-2025-0004"
          },
          "created_at": "2026-12-03T06:53:06.084Z",
          "created_by": "key:2"
        }
      ],
      "aggregations": []
    }
  },
  "reopenYear": {
    "response": {
      "year": 2025,
      "status": "reopened",
      "date_posting": "2025-12-31",
      "currency": "CZK",
      "revenue": 50000,
      "expenses": 8400,
      "profit": 41600,
      "journal_entry": {
        "id": 10,
        "no": "JE-2025-0003"
      },
      "reopened_by": {
        "id": 11,
        "no": "JE-2025-0004"
      },
      "created_at": "2026-12-03T06:53:06.084Z",
      "created_by": "key:2"
    }
  },
  "revalueForeignItems": {
    "request": {
      "date": "2026-11-30"
    },
    "response": {
      "date": "2026-11-30",
      "currency": "CZK",
      "gain": 0,
      "loss": 69.7,
      "lines": [
        {
          "kind": "receivable",
          "document": {
            "type": "sales_invoice",
            "id": 13,
            "no": "FV202600007"
          },
          "account_number": null,
          "gl_account": "311",
          "currency": "EUR",
          "amount": 290.4,
          "rate": 24.3,
          "rate_amount": 1,
          "rate_date": "2026-11-30",
          "rate_source": "manual",
          "booked": 7126.42,
          "revalued": 7056.72,
          "difference": -69.7,
          "result": -69.7
        }
      ],
      "journal_entry": {
        "id": 8,
        "no": "JE-2026-0006"
      },
      "reversed_by": {
        "id": 9,
        "no": "JE-2026-0007"
      },
      "created_at": "2026-12-03T06:53:06.060Z",
      "created_by": "key:2"
    }
  }
};
