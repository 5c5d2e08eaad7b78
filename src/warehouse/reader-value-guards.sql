-- Macros that stand in front of DuckDB's functions of the same name on every reader's connection (temp comes first in
-- the search path); sandboxed-reader.ts and reader_sandbox.py run each statement on each connection they open.
-- DuckDB builds a function's result outside its memory limit, and hears no interrupt until the call returns:
-- `repeat('x', 3000000000)` took 6 GB of the service's memory, `range(300000000)` 19 GB, `printf('%900000000d', 1)`
-- 1.8 GB. Each macro refuses a value of more than 64 MB (67108864 bytes; a list: 4194304 elements) before DuckDB builds it.
-- A reader's SQL check refuses calls through the system catalog (system.repeat), which would skip these, and the
-- helpers below, which the allow list does not name.
--
-- Each macro has one overload per number of arguments, with untyped parameters, and names each parameter once
-- (the lambda binds it to `p` or `k`): DuckDB copies a macro's arguments into its body and binds every typed
-- overload, so a body that named an argument twice, or typed overloads, made nested calls cost exponential time
-- to bind (12 nested repeat calls: over a minute).

CREATE TEMP MACRO quarry_too_large(what) AS error(concat('A value of more than 64 MB is not built here: ', what));

CREATE TEMP MACRO quarry_list_too_long(name, n) AS quarry_too_large(concat(name, ' would make a list of ', n, ' elements'));

-- How many steps lead from a to b: numbers, or timestamps by an interval (months counted as 30 days). The values
-- are compared through their text, as one body must bind for both kinds.
CREATE TEMP MACRO quarry_steps(a, b, s) AS abs(coalesce(
  (try_cast(CAST(b AS VARCHAR) AS HUGEINT) - try_cast(CAST(a AS VARCHAR) AS HUGEINT)) // nullif(try_cast(CAST(s AS VARCHAR) AS HUGEINT), 0),
  (epoch_us(try_cast(CAST(b AS VARCHAR) AS TIMESTAMPTZ)) - epoch_us(try_cast(CAST(a AS VARCHAR) AS TIMESTAMPTZ)))
    // nullif(epoch_us(TIMESTAMP '1970-01-01' + try_cast(CAST(s AS VARCHAR) AS INTERVAL)), 0)));

-- A value's size as text: its bytes for a string, more for a blob or a list, which is on the safe side.
CREATE TEMP MACRO repeat(s, n) AS list_transform([struct_pack(s := s, n := n)], p ->
  CASE WHEN p.n * strlen(CAST(p.s AS VARCHAR)) > 67108864 THEN quarry_too_large(concat('repeat would make ', p.n * strlen(CAST(p.s AS VARCHAR)), ' bytes'))
  ELSE system.main.repeat(p.s, p.n) END)[1];

-- lpad and rpad count characters, of up to 4 bytes each.
CREATE TEMP MACRO lpad(s, n, c) AS list_transform([n], k -> CASE WHEN k > 16777216 THEN quarry_too_large(concat('lpad would make ', k, ' characters')) ELSE system.main.lpad(s, k, c) END)[1];

CREATE TEMP MACRO rpad(s, n, c) AS list_transform([n], k -> CASE WHEN k > 16777216 THEN quarry_too_large(concat('rpad would make ', k, ' characters')) ELSE system.main.rpad(s, k, c) END)[1];

CREATE TEMP MACRO range
  (n) AS list_transform([n], k -> CASE WHEN k > 4194304 THEN quarry_list_too_long('range', k) ELSE system.main.range(k) END)[1],
  (a, b) AS list_transform([struct_pack(a := a, b := b)], p -> CASE WHEN p.b::HUGEINT - p.a > 4194304 THEN quarry_list_too_long('range', p.b::HUGEINT - p.a) ELSE system.main.range(p.a, p.b) END)[1],
  (a, b, s) AS list_transform([struct_pack(a := a, b := b, s := s)], p -> CASE WHEN quarry_steps(p.a, p.b, p.s) > 4194304 THEN quarry_list_too_long('range', quarry_steps(p.a, p.b, p.s)) ELSE system.main.range(p.a, p.b, p.s) END)[1];

CREATE TEMP MACRO generate_series
  (n) AS list_transform([n], k -> CASE WHEN k > 4194304 THEN quarry_list_too_long('generate_series', k) ELSE system.main.generate_series(k) END)[1],
  (a, b) AS list_transform([struct_pack(a := a, b := b)], p -> CASE WHEN p.b::HUGEINT - p.a > 4194304 THEN quarry_list_too_long('generate_series', p.b::HUGEINT - p.a) ELSE system.main.generate_series(p.a, p.b) END)[1],
  (a, b, s) AS list_transform([struct_pack(a := a, b := b, s := s)], p -> CASE WHEN quarry_steps(p.a, p.b, p.s) > 4194304 THEN quarry_list_too_long('generate_series', quarry_steps(p.a, p.b, p.s)) ELSE system.main.generate_series(p.a, p.b, p.s) END)[1];

CREATE TEMP MACRO list_resize
  (l, n) AS list_transform([n], k -> CASE WHEN k > 4194304 THEN quarry_list_too_long('list_resize', k) ELSE system.main.list_resize(l, k) END)[1],
  (l, n, v) AS list_transform([n], k -> CASE WHEN k > 4194304 THEN quarry_list_too_long('list_resize', k) ELSE system.main.list_resize(l, k, v) END)[1];

CREATE TEMP MACRO array_resize
  (l, n) AS list_transform([n], k -> CASE WHEN k > 4194304 THEN quarry_list_too_long('array_resize', k) ELSE system.main.array_resize(l, k) END)[1],
  (l, n, v) AS list_transform([n], k -> CASE WHEN k > 4194304 THEN quarry_list_too_long('array_resize', k) ELSE system.main.array_resize(l, k, v) END)[1];

-- A width or precision is refused from seven digits on, or when a value gives it (printf's *, format's nested {}).
-- A macro takes a fixed number of arguments: these take a format and up to 16 values.
CREATE TEMP MACRO printf
  (f) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p) END)[1],
  (f, v1) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1) END)[1],
  (f, v1, v2) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2) END)[1],
  (f, v1, v2, v3) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3) END)[1],
  (f, v1, v2, v3, v4) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4) END)[1],
  (f, v1, v2, v3, v4, v5) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5) END)[1],
  (f, v1, v2, v3, v4, v5, v6) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8, v9) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '%[^a-zA-Z%]*([*]|[0-9]{7,})') THEN quarry_too_large('printf''s format asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.printf(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16) END)[1];

CREATE TEMP MACRO format
  (f) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p) END)[1],
  (f, v1) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1) END)[1],
  (f, v1, v2) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2) END)[1],
  (f, v1, v2, v3) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3) END)[1],
  (f, v1, v2, v3, v4) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4) END)[1],
  (f, v1, v2, v3, v4, v5) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5) END)[1],
  (f, v1, v2, v3, v4, v5, v6) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8, v9) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15) END)[1],
  (f, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16) AS list_transform([f], p -> CASE WHEN regexp_matches(p, '[{][^{}]*:[^{}]*([{]|[0-9]{7,})') THEN quarry_too_large('format''s pattern asks for a width or precision of a million characters or more, or one a value gives') ELSE system.main.format(p, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16) END)[1];
