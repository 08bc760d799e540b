-- Nossos números drawn from a sequence (docs/decisions.md, "Nosso número"): the counter row of `boleto_numbers`
-- was updated and committed by a statement of its own for every few boletos (a commit's WAL flush each), where
-- `nextval` takes a number without a row lock or a commit of its own. One sequence serves every beneficiary:
-- unique across them is unique per beneficiary; a number taken by a failed issue is a gap, never a repeat, as
-- before. It starts after every number already given.
CREATE SEQUENCE IF NOT EXISTS boleto_nosso_numeros AS bigint MINVALUE 1 MAXVALUE 99999999999;

SELECT CASE WHEN given IS NULL THEN setval('boleto_nosso_numeros', 1, false)
            ELSE setval('boleto_nosso_numeros', given, true) END
  FROM (SELECT greatest((SELECT max(last) FROM boleto_numbers),
                        (SELECT max(nosso_numero::bigint) FROM boletos)) AS given) g;

DROP TABLE boleto_numbers;
