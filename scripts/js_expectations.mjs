// Ask Node (the runtime Pi 0.85 runs on) what each JavaScript function pi_tools.js reproduces returns, and write
// the answers as tests/data/js/<function>.json. Run: node scripts/js_expectations.mjs tests/data/js
// Inputs are JSON values (what a session can hold) plus `{"$undefined": true}` for a missing property.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const out = process.argv[2] ?? "tests/data/js";
mkdirSync(out, { recursive: true });
const UNDEF = { $undefined: true };
const decode = (v) => (v && typeof v === "object" && v.$undefined === true ? undefined : v);
const encodeNumber = (n) => (Number.isNaN(n) ? "NaN" : n === Infinity ? "Infinity" : n === -Infinity ? "-Infinity" : Object.is(n, -0) ? "-0" : n);
const write = (name, cases) => writeFileSync(join(out, `${name}.json`), JSON.stringify({ node: process.version, cases }, null, 1) + "\n");

const values = [null, UNDEF, true, false, 0, 1, -1, 0.1, 1.5, 1e21, 1e-7, 123456789012345680000, 2 ** 53, 2 ** 53 + 2,
  "", " ", "0", "abc", "false", " 12 ", "0x1F", "0b101", "0o17", "1e3", "-Infinity", "Infinity", "\u00a0 7 \ufeff", "12px",
  ".5", "5.", "+3", "--3", "\u2028", [], [0], [1, 2], [null], [[]], [1, [2, [3]]], {}, { a: 1 }, { length: 3 }];

write("string_conversion", values.map((v) => ({ value: v, result: String(decode(v)) })));
write("number_conversion", values.map((v) => ({ value: v, result: encodeNumber(Number(decode(v))) })));
write("truthiness", values.map((v) => ({ value: v, result: Boolean(decode(v)) })));
const numbers = [0, 1, -1, 0.1, 0.000001, 0.0000001, 1e21, 1e20, 123.456, -1.5e-10, 2 ** 53, 2 ** 64, 5e-324, 1.7976931348623157e308,
  100, 1e100, 0.1 + 0.2, 1 / 3, 12345678901234567890];
write("number_to_string", numbers.map((n) => ({ value: n, result: n.toString() })));
const eqValues = [null, UNDEF, true, false, 0, 1, 1.0, "1", "", "a", [], {}];
const eq = [];
for (const a of eqValues) for (const b of eqValues) eq.push({ left: a, right: b, result: decode(structuredClone(a)) === decode(structuredClone(b)) });
write("strict_equality", eq);

const strings = ["", "abc", "é", "日本語", "😀", "a😀b", "\ud83d", "\ude00x", "x\ud83d", "👍🏽 ok", "\u0000", "\u00a0 pad \ufeff",
  "\t\n\r\u000b\u000c text \u2028\u2029", "\u001c kept \u0085", "   ", "\u3000"];
write("string_length", strings.map((s) => ({ value: s, result: s.length })));
const slices = [];
for (const s of strings) for (const [a, b] of [[0, 1], [1, 3], [0, undefined], [-1, undefined], [-3, -1], [2, 1], [0, 100]])
  slices.push({ value: s, start: a, end: b === undefined ? UNDEF : b, result: b === undefined ? s.slice(a) : s.slice(a, b) });
write("string_slice", slices);
write("string_trim", strings.map((s) => ({ value: s, result: s.trim() })));

const objects = [{ b: 1, a: 2 }, { 2: "x", 1: "y", b: 0 }, { "01": 1, 1: 2, "-1": 3, 4294967294: 4, 4294967295: 5, a: 6 },
  { "": 1, " 1": 2, "1.0": 3, 10: 4, 9: 5 }];
write("object_keys", objects.map((o) => ({ value: o, result: Object.keys(o) })));

const stringify = [null, true, 0, -0, 1e21, 1e-7, 0.1, 2 ** 53 + 2, "a\"b\\c\n\u2028\u007f", "\ud83d", "😀", "\ud83d\ude00", [],
  {}, { b: [1, { "2": 3, "1": 4 }], a: null }, [1, "x", [null, false]], { "\u0000": "\u001f" }];
write("json_stringify", stringify.map((v) => ({ value: v, result: JSON.stringify(v) })));

const dates = [null, 0, 1700000000000, 1700000000000.9, -1.5, 8.64e15, 8.64e15 + 1, true, "", "2024-01-02", "2024-01",
  "2024", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.678Z", "2024-01-02T03:04:05.6789Z", "2024-01-02T03:04:05+05:30",
  "2024-01-02T03:04Z", "+002024-01-02T00:00:00Z", "-000001-01-01T00:00:00Z", "2024-13-01", "2024-02-30", "Tue, 02 Jan 2024 03:04:05 GMT",
  "not a date", [], {}];
// Local-time forms depend on the zone: fixed to UTC here and in the test.
write("date_parse", dates.map((v) => ({ value: v, result: encodeNumber(new Date(v).getTime()) })));
// toISOString of a time value; an invalid Date throws (JSON.stringify writes null): recorded as null.
const isoTimes = [0, 1, -1, 1.5, -1.5, 86399999, -86400000, 1767225600123, 253402300799999, 253402300800000,
  -62167219200000, -62167219200001, -62198755200000, 951782400000, 4107542400000, 8.64e15, -8.64e15, 8.64e15 + 1,
  -8.64e15 - 1, 9.8765432109876543e22, 2 ** 53, 1e300];
write("date_to_iso_string", isoTimes.map((v) => { const d = new Date(v); return { value: v, result: Number.isNaN(d.getTime()) ? null : d.toISOString() }; }));

const access = [];
const probe = (label, fn) => { try { fn(); access.push({ case: label, error: null }); } catch (e) { access.push({ case: label, error: e.message }); } };
probe("for_of_number", () => { const content = 5; for (const x of content); });
probe("for_of_object", () => { const content = {}; for (const x of content); });
probe("for_of_null", () => { const content = null; for (const x of content); });
probe("null_type", () => { const block = null; block.type; });
probe("undefined_type", () => { const block = undefined; block.type; });
probe("filter_number", () => { const content = 5; content.filter((x) => x); });
probe("replace_number", () => { const text = 5; text.replace("a", "b"); });
probe("replace_null", () => { const text = null; text.replace("a", "b"); });
probe("trim_undefined", () => { const record = {}; record.text.trim(); });
write("property_access", access);
