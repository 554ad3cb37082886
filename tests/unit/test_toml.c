/* Unit tests for base/toml.c: every value kind, the table rules of TOML 1.0, a
 * realistic pyproject.toml, errors with their positions, the depth limit, and
 * robustness over random and mutated inputs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "../../base/arena.h"
#include "../../base/toml.h"

/* ---- helpers -------------------------------------------------------------------- */

/* Parses from an exact-size heap copy, so that reading past len is visible to
 * AddressSanitizer (the parser must not rely on a terminating NUL). */
static const TomlValue *parse_n(Arena *a, const char *src, size_t len, TomlError *err)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, src, len);
    const TomlValue *root = toml_parse(a, copy, len, err);
    free(copy);     /* the tree must not point into the source */
    return root;
}

static const TomlValue *parse_ok(Arena *a, const char *src)
{
    TomlError err;
    const TomlValue *root = parse_n(a, src, strlen(src), &err);
    if (!root)
        print_error("unexpected error %u:%u: %s\n", err.line, err.col, err.msg);
    assert_non_null(root);
    assert_null(err.msg);
    assert_int_equal(toml_kind(root), TOML_TABLE);
    return root;
}

static void assert_str(const TomlValue *v, const char *want)
{
    size_t len;
    const char *s = toml_string(v, &len);
    assert_non_null(s);
    assert_int_equal(len, strlen(want));
    assert_string_equal(s, want);
}

static void assert_str_at(const TomlValue *root, const char *path, const char *want)
{
    const TomlValue *v = toml_path(root, path);
    if (!v)
        print_error("no value at %s\n", path);
    assert_int_equal(toml_kind(v), TOML_STRING);
    assert_str(v, want);
}

static void assert_int_at(const TomlValue *root, const char *path, long long want)
{
    const TomlValue *v = toml_path(root, path);
    if (!v)
        print_error("no value at %s\n", path);
    assert_int_equal(toml_kind(v), TOML_INTEGER);
    assert_true(toml_integer(v) == want);
}

static void assert_float_at(const TomlValue *root, const char *path, double want)
{
    const TomlValue *v = toml_path(root, path);
    assert_int_equal(toml_kind(v), TOML_FLOAT);
    if (toml_float(v) != want)
        print_error("%s: got %.17g, want %.17g\n", path, toml_float(v), want);
    assert_true(toml_float(v) == want);
}

static void assert_datetime_at(const TomlValue *root, const char *path, const char *want)
{
    const TomlValue *v = toml_path(root, path);
    assert_int_equal(toml_kind(v), TOML_DATETIME);
    assert_str(v, want);
}

/* Array of strings equal to want[0..n). */
static void assert_str_array(const TomlValue *arr, const char *const *want, size_t n)
{
    assert_int_equal(toml_kind(arr), TOML_ARRAY);
    assert_int_equal(toml_len(arr), n);
    for (size_t i = 0; i < n; i++)
        assert_str(toml_at(arr, i), want[i]);
}

/* ---- scalar values -------------------------------------------------------------- */

static void test_basic_strings_and_escapes(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "all = \"tab\\there \\\"q\\\" back\\\\slash \\u00e9 \\U0001F600 \\b\\f\\r\\n\"\n"
        "empty = \"\"\n"
        "raw_utf8 = \"h\xc3\xa9llo \xe4\xb8\xad\"\n"
        "upper_hex = \"\\u00E9\\U0010FFFF\"\n"
        "with_tab = \"a\tb\"\n"
        "hash = \"not # a comment\"\n");
    assert_str_at(r, "all", "tab\there \"q\" back\\slash \xc3\xa9 \xf0\x9f\x98\x80 \b\f\r\n");
    assert_str_at(r, "empty", "");
    assert_str_at(r, "raw_utf8", "h\xc3\xa9llo \xe4\xb8\xad");
    assert_str_at(r, "upper_hex", "\xc3\xa9\xf4\x8f\xbf\xbf");
    assert_str_at(r, "with_tab", "a\tb");
    assert_str_at(r, "hash", "not # a comment");
    arena_free(&a);
}

static void test_string_with_nul_escape(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a, "s = \"a\\u0000b\"\n");
    size_t len;
    const char *s = toml_string(toml_table_get(r, "s"), &len);
    assert_int_equal(len, 3);
    assert_memory_equal(s, "a\0b", 3);
    assert_int_equal(s[3], 0);  /* still NUL-terminated */
    arena_free(&a);
}

static void test_literal_and_multiline_strings(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "winpath = 'C:\\Users\\nodejs\\templates'\n"
        "regex = '<\\i\\c*\\s*>'\n"
        "quoted = 'Tom \"Dubs\" Preston-Werner'\n"
        "ml = \"\"\"\nRoses are red\nViolets are blue\"\"\"\n"
        "cont = \"\"\"\\\n    The quick brown \\\n\n    fox \\   \n    jumps.\"\"\"\n"
        "two_quotes = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"\n"
        "end_quotes = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\n"
        "escaped_delim = \"\"\"Here are three quotation marks: \"\"\\\".\"\"\"\n"
        "ml_lit = '''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''\n"
        "lit_quotes = ''''That,' she said, 'is still pointless.''''\n"
        "lit_backslash = '''a\\\nb'''\n"
        "one_line_ml = \"\"\"x\"\"\"\n");
    assert_str_at(r, "winpath", "C:\\Users\\nodejs\\templates");
    assert_str_at(r, "regex", "<\\i\\c*\\s*>");
    assert_str_at(r, "quoted", "Tom \"Dubs\" Preston-Werner");
    assert_str_at(r, "ml", "Roses are red\nViolets are blue");
    assert_str_at(r, "cont", "The quick brown fox jumps.");
    assert_str_at(r, "two_quotes", "Here are two quotation marks: \"\". Simple enough.");
    assert_str_at(r, "end_quotes", "\"This,\" she said, \"is just a pointless statement.\"");
    assert_str_at(r, "escaped_delim", "Here are three quotation marks: \"\"\".");
    assert_str_at(r, "ml_lit",
                  "The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n");
    assert_str_at(r, "lit_quotes", "'That,' she said, 'is still pointless.'");
    assert_str_at(r, "lit_backslash", "a\\\nb");   /* no line continuation in literals */
    assert_str_at(r, "one_line_ml", "x");
    arena_free(&a);
}

static void test_integers(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "pos = +99\nplain = 42\nzero = 0\nneg = -17\nplus_zero = +0\nminus_zero = -0\n"
        "u1 = 1_000\nu2 = 5_349_221\nu3 = 1_2_3_4_5\n"
        "hex1 = 0xDEADBEEF\nhex2 = 0xdeadbeef\nhex3 = 0xdead_beef\nhex_max = 0x7FFFFFFFFFFFFFFF\n"
        "hex_zeros = 0x00000001\n"
        "oct1 = 0o01234567\noct2 = 0o755\nbin = 0b11010110\nbin0 = 0b0\n"
        "max = 9223372036854775807\nmin = -9223372036854775808\n");
    assert_int_at(r, "pos", 99);
    assert_int_at(r, "plain", 42);
    assert_int_at(r, "zero", 0);
    assert_int_at(r, "neg", -17);
    assert_int_at(r, "plus_zero", 0);
    assert_int_at(r, "minus_zero", 0);
    assert_int_at(r, "u1", 1000);
    assert_int_at(r, "u2", 5349221);
    assert_int_at(r, "u3", 12345);
    assert_int_at(r, "hex1", 0xDEADBEEF);
    assert_int_at(r, "hex2", 0xDEADBEEF);
    assert_int_at(r, "hex3", 0xDEADBEEF);
    assert_int_at(r, "hex_max", 0x7FFFFFFFFFFFFFFFLL);
    assert_int_at(r, "hex_zeros", 1);
    assert_int_at(r, "oct1", 01234567);
    assert_int_at(r, "oct2", 0755);
    assert_int_at(r, "bin", 214);
    assert_int_at(r, "bin0", 0);
    assert_int_at(r, "max", 9223372036854775807LL);
    assert_int_at(r, "min", -9223372036854775807LL - 1);
    arena_free(&a);
}

static void test_floats(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "f1 = +1.0\nf2 = 3.1415\nf3 = -0.01\nf4 = 5e+22\nf5 = 1e06\nf6 = -2E-2\nf7 = 6.626e-34\n"
        "f8 = 224_617.445_991_228\nf9 = 0.0\nf10 = 1e1_0\nf11 = 0e0\n"
        "neg_zero = -0.0\n"
        "i1 = inf\ni2 = +inf\ni3 = -inf\nn1 = nan\nn2 = +nan\nn3 = -nan\n");
    assert_float_at(r, "f1", 1.0);
    assert_float_at(r, "f2", 3.1415);
    assert_float_at(r, "f3", -0.01);
    assert_float_at(r, "f4", 5e22);
    assert_float_at(r, "f5", 1e6);
    assert_float_at(r, "f6", -0.02);
    assert_float_at(r, "f7", 6.626e-34);
    assert_float_at(r, "f8", 224617.445991228);
    assert_float_at(r, "f9", 0.0);
    assert_float_at(r, "f10", 1e10);
    assert_float_at(r, "f11", 0.0);
    assert_true(signbit(toml_float(toml_path(r, "neg_zero"))));
    assert_float_at(r, "i1", INFINITY);
    assert_float_at(r, "i2", INFINITY);
    assert_float_at(r, "i3", -INFINITY);
    assert_int_equal(toml_kind(toml_path(r, "n1")), TOML_FLOAT);
    assert_true(isnan(toml_float(toml_path(r, "n1"))));
    assert_true(isnan(toml_float(toml_path(r, "n2"))));
    assert_true(isnan(toml_float(toml_path(r, "n3"))));
    arena_free(&a);
}

static void test_bools_and_datetimes(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "t = true\nf = false\n"
        "odt1 = 1979-05-27T07:32:00Z\n"
        "odt2 = 1979-05-27T00:32:00-07:00\n"
        "odt3 = 1979-05-27T00:32:00.999999+05:30\n"
        "odt4 = 1979-05-27 07:32:00Z\n"
        "odt5 = 1979-05-27t07:32:00z\n"
        "ldt1 = 1979-05-27T07:32:00\n"
        "ldt2 = 1979-05-27T00:32:00.999999\n"
        "ld = 1979-05-27\n"
        "ld_comment = 1979-05-27 # a date, then a comment\n"
        "leap_day = 2024-02-29\n"
        "lt1 = 07:32:00\n"
        "lt2 = 00:32:00.999999\n"
        "leap_second = 1990-12-31T23:59:60Z\n");
    assert_int_equal(toml_kind(toml_path(r, "t")), TOML_BOOL);
    assert_true(toml_bool(toml_path(r, "t")));
    assert_int_equal(toml_kind(toml_path(r, "f")), TOML_BOOL);
    assert_false(toml_bool(toml_path(r, "f")));
    assert_datetime_at(r, "odt1", "1979-05-27T07:32:00Z");
    assert_datetime_at(r, "odt2", "1979-05-27T00:32:00-07:00");
    assert_datetime_at(r, "odt3", "1979-05-27T00:32:00.999999+05:30");
    assert_datetime_at(r, "odt4", "1979-05-27 07:32:00Z");
    assert_datetime_at(r, "odt5", "1979-05-27t07:32:00z");
    assert_datetime_at(r, "ldt1", "1979-05-27T07:32:00");
    assert_datetime_at(r, "ldt2", "1979-05-27T00:32:00.999999");
    assert_datetime_at(r, "ld", "1979-05-27");
    assert_datetime_at(r, "ld_comment", "1979-05-27");
    assert_datetime_at(r, "leap_day", "2024-02-29");
    assert_datetime_at(r, "lt1", "07:32:00");
    assert_datetime_at(r, "lt2", "00:32:00.999999");
    assert_datetime_at(r, "leap_second", "1990-12-31T23:59:60Z");
    arena_free(&a);
}

/* ---- arrays and tables ---------------------------------------------------------- */

static void test_arrays(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "ints = [ 1, 2, 3 ]\n"
        "nested = [ [ 1, 2 ], [\"a\", 'b', \"\"\"c\"\"\"] ]\n"
        "mixed = [ 0.5, 1, \"x\", true, 1979-05-27, { k = 1 }, [] ]\n"
        "multi = [\n  1,\n  2, # this is ok\n]\n"
        "comments = [ # open\n  # only a comment\n  \"x\" # after\n  , \"y\"\n  # before close\n]\n"
        "empty = [ ]\n"
        "empty_comment = [\n  # nothing here\n]\n"
        "trailing = [1,]\n");
    const TomlValue *ints = toml_path(r, "ints");
    assert_int_equal(toml_kind(ints), TOML_ARRAY);
    assert_int_equal(toml_len(ints), 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(toml_integer(toml_at(ints, i)), (long long)i + 1);
    assert_null(toml_at(ints, 3));

    const TomlValue *nested = toml_path(r, "nested");
    assert_int_equal(toml_len(nested), 2);
    assert_int_equal(toml_integer(toml_at(toml_at(nested, 0), 1)), 2);
    static const char *const abc[] = { "a", "b", "c" };
    assert_str_array(toml_at(nested, 1), abc, 3);

    const TomlValue *mixed = toml_path(r, "mixed");
    static const TomlKind kinds[] = { TOML_FLOAT, TOML_INTEGER, TOML_STRING, TOML_BOOL,
                                      TOML_DATETIME, TOML_TABLE, TOML_ARRAY };
    assert_int_equal(toml_len(mixed), 7);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(toml_kind(toml_at(mixed, i)), kinds[i]);
    assert_int_equal(toml_integer(toml_table_get(toml_at(mixed, 5), "k")), 1);

    assert_int_equal(toml_len(toml_path(r, "multi")), 2);
    static const char *const xy[] = { "x", "y" };
    assert_str_array(toml_path(r, "comments"), xy, 2);
    assert_int_equal(toml_kind(toml_path(r, "empty")), TOML_ARRAY);
    assert_int_equal(toml_len(toml_path(r, "empty")), 0);
    assert_int_equal(toml_len(toml_path(r, "empty_comment")), 0);
    assert_int_equal(toml_len(toml_path(r, "trailing")), 1);
    arena_free(&a);
}

static void test_inline_tables(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "name = { first = \"Tom\", last = \"Preston-Werner\" }\n"
        "point = {x=1,y=2}\n"
        "animal = { type.name = \"pug\", type.size = 3 }\n"
        "empty = {}\n"
        "nested = { a = { b = { c = [1, { d = true }] } } }\n");
    assert_str_at(r, "name.first", "Tom");
    assert_str_at(r, "name.last", "Preston-Werner");
    assert_int_equal(toml_len(toml_path(r, "name")), 2);
    assert_int_at(r, "point.x", 1);
    assert_int_at(r, "point.y", 2);
    assert_str_at(r, "animal.type.name", "pug");
    assert_int_at(r, "animal.type.size", 3);
    assert_int_equal(toml_kind(toml_path(r, "empty")), TOML_TABLE);
    assert_int_equal(toml_len(toml_path(r, "empty")), 0);
    const TomlValue *c = toml_path(r, "nested.a.b.c");
    assert_int_equal(toml_len(c), 2);
    assert_true(toml_bool(toml_table_get(toml_at(c, 1), "d")));
    arena_free(&a);
}

static void test_tables_and_arrays_of_tables(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "top = 0\n"
        "[table-1]\nkey1 = \"some string\"\nkey2 = 123\n"
        "[ dog . \"tater.man\" ]\ntype.name = \"pug\"\n"
        "[x.y.z.w]\n"
        "[x]\n"      /* defining a super-table afterwards is allowed */
        "v = 1\n"
        "[[fruits]]\nname = \"apple\"\n"
        "[fruits.physical]\ncolor = \"red\"\n"
        "[[fruits.varieties]]\nname = \"red delicious\"\n"
        "[[fruits.varieties]]\nname = \"granny smith\"\n"
        "[[fruits]]\nname = \"banana\"\n"
        "[[fruits.varieties]]\nname = \"plantain\"\n"
        "[[ empty ]]\n[[empty]]\n");
    assert_int_at(r, "top", 0);
    assert_str_at(r, "table-1.key1", "some string");
    assert_int_at(r, "table-1.key2", 123);
    const TomlValue *dog = toml_table_get(toml_path(r, "dog"), "tater.man");
    assert_str(toml_path(dog, "type.name"), "pug");
    assert_int_equal(toml_kind(toml_path(r, "x.y.z.w")), TOML_TABLE);
    assert_int_at(r, "x.v", 1);

    const TomlValue *fruits = toml_path(r, "fruits");
    assert_int_equal(toml_kind(fruits), TOML_ARRAY);
    assert_int_equal(toml_len(fruits), 2);
    const TomlValue *apple = toml_at(fruits, 0), *banana = toml_at(fruits, 1);
    assert_str(toml_table_get(apple, "name"), "apple");
    assert_str(toml_path(apple, "physical.color"), "red");
    assert_int_equal(toml_len(toml_table_get(apple, "varieties")), 2);
    assert_str(toml_table_get(toml_at(toml_table_get(apple, "varieties"), 1), "name"), "granny smith");
    assert_str(toml_table_get(banana, "name"), "banana");
    assert_null(toml_table_get(banana, "physical"));
    assert_int_equal(toml_len(toml_table_get(banana, "varieties")), 1);
    assert_str(toml_table_get(toml_at(toml_table_get(banana, "varieties"), 0), "name"), "plantain");
    assert_int_equal(toml_len(toml_path(r, "empty")), 2);
    assert_int_equal(toml_len(toml_at(toml_path(r, "empty"), 0)), 0);
    arena_free(&a);
}

static void test_dotted_keys_create_tables(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "a.b.c = 1\n"
        "a.b.d = 2\n"
        "a.e = 3\n"
        "fruit . color = \"yellow\"\n"
        "site.\"google.com\" = true\n"
        "3.14159 = \"pi\"\n"
        "[t]\n"
        "x.y = 1\n"
        "[t.x.z]\n"         /* a sub-table of a table made by dotted keys is allowed */
        "w = 2\n");
    const TomlValue *ab = toml_path(r, "a.b");
    assert_int_equal(toml_kind(toml_path(r, "a")), TOML_TABLE);
    assert_int_equal(toml_kind(ab), TOML_TABLE);
    assert_int_equal(toml_len(ab), 2);
    assert_int_at(r, "a.b.c", 1);
    assert_int_at(r, "a.b.d", 2);
    assert_int_at(r, "a.e", 3);
    assert_str_at(r, "fruit.color", "yellow");
    assert_true(toml_bool(toml_table_get(toml_path(r, "site"), "google.com")));
    assert_null(toml_path(r, "site.google"));
    assert_str_at(r, "3.14159", "pi");
    assert_int_equal(toml_kind(toml_path(r, "3")), TOML_TABLE);
    assert_int_at(r, "t.x.y", 1);
    assert_int_at(r, "t.x.z.w", 2);
    arena_free(&a);
}

static void test_quoted_and_odd_keys(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "\"127.0.0.1\" = \"v1\"\n"
        "\"character encoding\" = \"v2\"\n"
        "\"\xca\x8e\xc7\x9d\xca\x9e\" = \"v3\"\n"
        "'key2' = \"v4\"\n"
        "'quoted \"value\"' = \"v5\"\n"
        "\"\" = \"blank\"\n"
        "\"a\\u0062c\" = \"escaped\"\n"
        "1234 = \"num\"\n"
        "true = \"bare true\"\n"
        "2000-01-01 = \"date-like key\"\n"
        "-_- = \"dashes\"\n");
    assert_str(toml_table_get(r, "127.0.0.1"), "v1");
    assert_str(toml_table_get(r, "character encoding"), "v2");
    assert_str(toml_table_get(r, "\xca\x8e\xc7\x9d\xca\x9e"), "v3");
    assert_str(toml_table_get(r, "key2"), "v4");
    assert_str(toml_table_get(r, "quoted \"value\""), "v5");
    assert_str(toml_table_get(r, ""), "blank");
    assert_str(toml_table_get(r, "abc"), "escaped");
    assert_str(toml_table_get(r, "1234"), "num");
    assert_str(toml_table_get(r, "true"), "bare true");
    assert_str(toml_table_get(r, "2000-01-01"), "date-like key");
    assert_str(toml_table_get(r, "-_-"), "dashes");
    assert_int_equal(toml_len(r), 11);
    arena_free(&a);
}

static void test_comments_crlf_bom(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "\xEF\xBB\xBF# leading comment\r\n"
        "a = 1 # trailing\r\n"
        "\r\n"
        "  \t[t]   # header comment\r\n"
        "b = \"\"\"\r\nx\r\ny\\\r\n   z\"\"\"\r\n"
        "c = '''p\r\nq'''\r\n"
        "d = [\r\n 1,\r\n 2 # c\r\n]\r\n"
        "# comment with \xe2\x82\xac and \ttab\r\n"
        "e = \"last\"");     /* no final newline */
    assert_int_at(r, "a", 1);
    assert_str_at(r, "t.b", "x\nyz");   /* CRLF read as LF, continuation over CRLF */
    assert_str_at(r, "t.c", "p\nq");
    assert_int_equal(toml_len(toml_path(r, "t.d")), 2);
    assert_str_at(r, "t.e", "last");
    const TomlValue *empty = parse_ok(&a, "");
    assert_int_equal(toml_len(empty), 0);
    assert_int_equal(toml_len(parse_ok(&a, "# only\n\n   \n")), 0);
    assert_non_null(toml_parse(&a, NULL, 0, NULL));
    arena_free(&a);
}

static void test_length_is_respected(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const char *src = "a = 1\nb = 2\nc = 3";
    TomlError err;
    /* only "a = 1\nb = 2" is the document; the rest of the buffer is not read */
    const TomlValue *r = toml_parse(&a, src, 11, &err);
    assert_non_null(r);
    assert_int_equal(toml_len(r), 2);
    assert_null(toml_table_get(r, "c"));
    /* a cut inside a string is an unterminated string, not a read past the end */
    assert_null(toml_parse(&a, "s = \"abc\"", 7, &err));
    assert_non_null(strstr(err.msg, "unterminated string"));
    arena_free(&a);
}

/* ---- the realistic case --------------------------------------------------------- */

static const char PYPROJECT[] =
    "# pyproject.toml of a hypothetical package\n"
    "[build-system]\n"
    "requires = [\"setuptools>=68\", \"wheel\"]\n"
    "build-backend = \"setuptools.build_meta\"\n"
    "\n"
    "[project]\n"
    "name = \"gpu-kernels\"\n"
    "version = \"0.4.2\"\n"
    "description = \"\"\"\n"
    "Fast kernels for \\\n"
    "    things.\"\"\"\n"
    "readme = { file = \"README.md\", content-type = \"text/markdown\" }\n"
    "requires-python = \">=3.10\"\n"
    "license = { text = \"MIT\" }\n"
    "keywords = [\"gpu\", \"cuda\",]\n"
    "classifiers = [\n"
    "    \"Programming Language :: Python :: 3\",  # comment inside an array\n"
    "    'License :: OSI Approved :: MIT License',\n"
    "]\n"
    "dependencies = [\n"
    "  \"numpy>=1.26\",\n"
    "  \"torch>=2.2; platform_system != 'Darwin'\",\n"
    "]\n"
    "\n"
    "[[project.authors]]\n"
    "name = \"Ada Lovelace\"\n"
    "email = \"ada@example.org\"\n"
    "\n"
    "[[project.authors]]\n"
    "name = \"Grace Hopper\"\n"
    "\n"
    "[project.optional-dependencies]\n"
    "dev = [\"pytest>=8\", \"ruff==0.4.4\"]\n"
    "\n"
    "[project.scripts]\n"
    "gk = \"gpu_kernels.cli:main\"\n"
    "\n"
    "[tool.ruff]\n"
    "line-length = 100\n"
    "target-version = \"py311\"\n"
    "extend-exclude = ['''build/''', \"dist\"]\n"
    "\n"
    "[tool.ruff.lint]\n"
    "select = [\"E\", \"F\", \"I\"]\n"
    "ignore = [\"E501\"]\n"
    "\n"
    "[tool.ruff.lint.per-file-ignores]\n"
    "\"__init__.py\" = [\"F401\"]\n"
    "\n"
    "[tool.black]\n"
    "line-length = 100\n"
    "target-version = ['py310', 'py311']\n"
    "include = '\\.pyi?$'\n"
    "extend-exclude = '''\n"
    "/(\n"
    "  \\.eggs\n"
    "  | build\n"
    "  | [tool.pfc]\n"                   /* a header inside a string is just text */
    ")/\n"
    "'''\n"
    "\n"
    "[[tool.mypy.overrides]]\n"
    "module = [\"torch.*\", \"triton.*\"]\n"
    "ignore_missing_imports = true\n"
    "\n"
    "[[tool.mypy.overrides]]\n"
    "module = \"gpu_kernels.legacy\"\n"
    "disallow_untyped_defs = false\n"
    "\n"
    "[tool.pfc]\n"
    "select = [\"PERF\", \"GPU001\", \"GPU002\"]\n"
    "ignore = [\n"
    "    \"PERF203\",   # try/except in a loop is fine here\n"
    "]\n"
    "per-file-ignores = { \"tests/**/*.py\" = [\"PERF\"], \"benchmarks/*_old.py\" = [\"GPU001\", \"GPU002\"] }\n"
    "target-version = \"3.11\"\n"
    "target_gpu = \"a100-80gb\"\n"
    "fail-on = \"error\"\n"
    "max-findings = 50\n"
    "threshold = 0.75\n"
    "experimental = false\n"
    "updated = 2024-05-01T10:00:00Z\n"
    "\n"
    "[tool.pfc.gpu]\n"
    "memory_gib = 80\n"
    "\n"
    "[tool.pytest.ini_options]\n"
    "addopts = \"-q\"\n"
    "testpaths = [\"tests\"]\n";

static void test_pyproject_other_tools(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a, PYPROJECT);
    assert_str_at(r, "build-system.build-backend", "setuptools.build_meta");
    assert_int_equal(toml_len(toml_path(r, "build-system.requires")), 2);
    assert_str_at(r, "project.name", "gpu-kernels");
    assert_str_at(r, "project.description", "Fast kernels for things.");
    assert_str_at(r, "project.readme.content-type", "text/markdown");
    assert_str_at(r, "project.license.text", "MIT");
    assert_int_equal(toml_len(toml_path(r, "project.keywords")), 2);
    assert_str(toml_at(toml_path(r, "project.classifiers"), 1), "License :: OSI Approved :: MIT License");
    assert_str(toml_at(toml_path(r, "project.dependencies"), 1), "torch>=2.2; platform_system != 'Darwin'");
    const TomlValue *authors = toml_path(r, "project.authors");
    assert_int_equal(toml_kind(authors), TOML_ARRAY);
    assert_int_equal(toml_len(authors), 2);
    assert_str(toml_table_get(toml_at(authors, 0), "email"), "ada@example.org");
    assert_str(toml_table_get(toml_at(authors, 1), "name"), "Grace Hopper");
    assert_null(toml_table_get(toml_at(authors, 1), "email"));
    assert_str_at(r, "project.scripts.gk", "gpu_kernels.cli:main");
    assert_int_at(r, "tool.ruff.line-length", 100);
    assert_str(toml_at(toml_path(r, "tool.ruff.extend-exclude"), 0), "build/");
    assert_str(toml_at(toml_table_get(toml_path(r, "tool.ruff.lint.per-file-ignores"), "__init__.py"), 0),
               "F401");
    assert_str_at(r, "tool.black.include", "\\.pyi?$");
    assert_str_at(r, "tool.black.extend-exclude", "/(\n  \\.eggs\n  | build\n  | [tool.pfc]\n)/\n");
    const TomlValue *overrides = toml_path(r, "tool.mypy.overrides");
    assert_int_equal(toml_len(overrides), 2);
    assert_true(toml_bool(toml_table_get(toml_at(overrides, 0), "ignore_missing_imports")));
    assert_str(toml_table_get(toml_at(overrides, 1), "module"), "gpu_kernels.legacy");
    assert_str_at(r, "tool.pytest.ini_options.addopts", "-q");
    /* the tool table lists the tools in file order */
    const TomlValue *tool = toml_path(r, "tool");
    static const char *const tools[] = { "ruff", "black", "mypy", "pfc", "pytest" };
    assert_int_equal(toml_len(tool), 5);
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(toml_key_at(tool, i, NULL), tools[i]);
    arena_free(&a);
}

static void test_pyproject_tool_pfc(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a, PYPROJECT);
    const TomlValue *pfc = toml_path(r, "tool.pfc");
    assert_int_equal(toml_kind(pfc), TOML_TABLE);
    static const char *const select[] = { "PERF", "GPU001", "GPU002" };
    assert_str_array(toml_table_get(pfc, "select"), select, 3);
    static const char *const ignore[] = { "PERF203" };
    assert_str_array(toml_table_get(pfc, "ignore"), ignore, 1);
    assert_str(toml_table_get(pfc, "target-version"), "3.11");
    assert_str(toml_table_get(pfc, "target_gpu"), "a100-80gb");
    assert_str(toml_table_get(pfc, "fail-on"), "error");
    assert_int_equal(toml_integer(toml_table_get(pfc, "max-findings")), 50);
    assert_true(toml_float(toml_table_get(pfc, "threshold")) == 0.75);
    assert_int_equal(toml_kind(toml_table_get(pfc, "experimental")), TOML_BOOL);
    assert_false(toml_bool(toml_table_get(pfc, "experimental")));
    assert_datetime_at(pfc, "updated", "2024-05-01T10:00:00Z");
    assert_int_at(r, "tool.pfc.gpu.memory_gib", 80);

    /* per-file-ignores: quoted glob keys, in file order */
    const TomlValue *pfi = toml_table_get(pfc, "per-file-ignores");
    assert_int_equal(toml_kind(pfi), TOML_TABLE);
    assert_int_equal(toml_len(pfi), 2);
    const TomlValue *v;
    assert_string_equal(toml_key_at(pfi, 0, &v), "tests/**/*.py");
    static const char *const perf[] = { "PERF" };
    assert_str_array(v, perf, 1);
    assert_string_equal(toml_key_at(pfi, 1, &v), "benchmarks/*_old.py");
    static const char *const gpu[] = { "GPU001", "GPU002" };
    assert_str_array(v, gpu, 2);
    assert_null(toml_key_at(pfi, 2, &v));
    assert_null(v);

    /* all of [tool.pfc] in file order */
    static const char *const keys[] = { "select", "ignore", "per-file-ignores", "target-version",
                                        "target_gpu", "fail-on", "max-findings", "threshold",
                                        "experimental", "updated", "gpu" };
    assert_int_equal(toml_len(pfc), 11);
    for (size_t i = 0; i < 11; i++)
        assert_string_equal(toml_key_at(pfc, i, NULL), keys[i]);
    arena_free(&a);
}

static void test_header_inside_string_is_not_a_header(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a,
        "[tool.other]\n"
        "doc = \"\"\"\n[tool.pfc]\nselect = [\"X\"]\n\"\"\"\n"
        "lit = '''\n[tool.pfc]\n'''\n"
        "arr = [\n  \"\"\"\n[tool.pfc]\n\"\"\", # [tool.pfc]\n]\n");
    assert_null(toml_path(r, "tool.pfc"));
    assert_int_equal(toml_len(toml_path(r, "tool")), 1);
    assert_str_at(r, "tool.other.doc", "[tool.pfc]\nselect = [\"X\"]\n");
    arena_free(&a);
}

/* ---- accessors ------------------------------------------------------------------ */

static void test_accessors_on_null_and_wrong_kind(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a, "s = \"x\"\ni = 7\nb = true\narr = [1]\n");
    size_t len = 99;
    assert_int_equal(toml_kind(NULL), TOML_NONE);
    assert_null(toml_string(NULL, &len));
    assert_int_equal(len, 0);
    assert_null(toml_string(toml_path(r, "i"), NULL));
    assert_int_equal(toml_integer(toml_path(r, "s")), 0);
    assert_int_equal(toml_integer(NULL), 0);
    assert_true(toml_float(toml_path(r, "i")) == 7.0);  /* integers convert */
    assert_true(toml_float(toml_path(r, "s")) == 0.0);
    assert_false(toml_bool(toml_path(r, "s")));
    assert_false(toml_bool(NULL));
    assert_int_equal(toml_len(toml_path(r, "s")), 0);
    assert_int_equal(toml_len(NULL), 0);
    assert_null(toml_at(r, 0));                 /* a table is not an array */
    assert_null(toml_at(toml_path(r, "arr"), 1));
    assert_null(toml_key_at(toml_path(r, "arr"), 0, NULL));
    assert_null(toml_table_get(NULL, "s"));
    assert_null(toml_table_get(r, NULL));
    assert_null(toml_table_get(toml_path(r, "s"), "x"));
    assert_null(toml_path(r, "s.x"));           /* through a string */
    assert_null(toml_path(r, "missing.deeper"));
    assert_null(toml_path(NULL, "s"));
    assert_null(toml_path(r, NULL));
    assert_null(toml_path(r, "s."));
    assert_non_null(toml_path(r, "s"));
    arena_free(&a);
}

static void test_large_table_lookups(void **state)
{
    (void)state;
    enum { N = 5000 };
    char *src = malloc(N * 32), *o = src;
    assert_non_null(src);
    for (int i = 0; i < N; i++)
        o += sprintf(o, "key%d = %d\n", i, i * 3);
    Arena a;
    arena_init(&a);
    TomlError err;
    const TomlValue *r = toml_parse(&a, src, (size_t)(o - src), &err);
    assert_non_null(r);
    assert_int_equal(toml_len(r), N);
    for (int i = 0; i < N; i += 7) {
        char key[32];
        sprintf(key, "key%d", i);
        assert_int_equal(toml_integer(toml_table_get(r, key)), i * 3);
        assert_string_equal(toml_key_at(r, (size_t)i, NULL), key);
    }
    assert_null(toml_table_get(r, "key5000"));
    /* a duplicate far into a large (indexed) table is still found */
    o += sprintf(o, "key2500 = 0\n");
    assert_null(toml_parse(&a, src, (size_t)(o - src), &err));
    assert_int_equal(err.line, N + 1);
    assert_non_null(strstr(err.msg, "duplicate key"));
    free(src);
    arena_free(&a);
}

/* ---- errors --------------------------------------------------------------------- */

typedef struct ErrorCase {
    const char *src;
    size_t len;         /* 0: strlen(src) */
    uint32_t line, col;
    const char *msg;    /* a substring of the message */
} ErrorCase;

static const ErrorCase ERROR_CASES[] = {
    /* duplicates and redefinitions */
    { "a = 1\nb = 2\na = 3\n", 0, 3, 1, "duplicate key 'a'" },
    { "a.b = 1\na.b = 2\n", 0, 2, 3, "duplicate key 'a.b'" },
    { "\"a\" = 1\na = 2\n", 0, 2, 1, "duplicate key" },
    { "x = {a = 1, a = 2}\n", 0, 1, 13, "duplicate key" },
    { "[a]\nx = 1\n[b]\n[a]\n", 0, 4, 2, "table 'a' is defined more than once" },
    { "[a.b]\n[a.b]\n", 0, 2, 4, "defined more than once" },
    { "[fruit]\napple.color = 'red'\n[fruit.apple]\n", 0, 3, 8, "defined more than once" },
    { "[a]\nb = 1\n[a.b]\n", 0, 3, 4, "already has a value" },
    { "[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 0, 4, 3, "defined by a [header]" },
    { "a = {x = 1}\na.y = 2\n", 0, 2, 1, "inline table" },
    { "a = {x = 1}\n[a.b]\n", 0, 2, 2, "inline table" },
    { "a = {}\n[a]\n", 0, 2, 2, "defined more than once" },
    { "x = {a = {b = 1}, a.c = 2}\n", 0, 1, 19, "inline table" },
    { "a = []\n[[a]]\n", 0, 2, 3, "not an array of tables" },
    { "[a]\n[[a]]\n", 0, 2, 3, "not an array of tables" },
    { "[[a]]\n[a]\n", 0, 2, 2, "already has a value" },
    { "a = [1]\n[a.b]\n", 0, 2, 2, "not a table" },
    { "a = 1\na.b = 2\n", 0, 2, 1, "not a table" },
    /* strings */
    { "x = 1\ns = \"abc\n", 0, 2, 5, "unterminated string" },
    { "s = 'abc\n", 0, 1, 5, "unterminated string" },
    { "s = \"abc\\\"\n", 0, 1, 5, "unterminated string" },
    { "a = 1\nb = \"\"\"abc\n\ndef\n", 0, 2, 5, "unterminated multi-line string" },
    { "b = '''abc''\n", 0, 1, 5, "unterminated multi-line string" },
    { "s = \"ab\\qc\"\n", 0, 1, 8, "invalid escape" },
    { "s = \"\\x41\"\n", 0, 1, 6, "invalid escape" },
    { "s = \"a\\ b\"\n", 0, 1, 7, "invalid escape" },
    { "s = \"\"\"a\\  b\"\"\"\n", 0, 1, 9, "invalid escape" },
    { "s = \"\\u12\"\n", 0, 1, 6, "4 hex digits" },
    { "s = \"\\U0001F60\"\n", 0, 1, 6, "8 hex digits" },
    { "s = \"\\uD800\"\n", 0, 1, 6, "Unicode scalar" },
    { "s = \"\\U00110000\"\n", 0, 1, 6, "Unicode scalar" },
    { "s = \"a\x01" "b\"\n", 0, 1, 7, "control character in string" },
    { "s = 'a\x7f'\n", 0, 1, 7, "control character in string" },
    { "s = \"a\0b\"\n", 10, 1, 7, "control character in string" },
    { "s = \"\"\"a\rb\"\"\"\n", 0, 1, 9, "carriage return" },
    { "\"\"\"k\"\"\" = 1\n", 0, 1, 1, "key cannot be a multi-line string" },
    /* numbers */
    { "n = 012\n", 0, 1, 5, "leading zeros" },
    { "n = -01.5\n", 0, 1, 5, "leading zeros" },
    { "n = 1__000\n", 0, 1, 5, "'_' in a number" },
    { "n = 1_\n", 0, 1, 5, "'_' in a number" },
    { "n = _1\n", 0, 1, 5, "expected a value" },
    { "n = 0x_1\n", 0, 1, 5, "'_' in a number" },
    { "n = 1.\n", 0, 1, 5, "invalid number" },
    { "n = 1.e5\n", 0, 1, 5, "invalid number" },
    { "n = 1e\n", 0, 1, 5, "invalid number" },
    { "n = .5\n", 0, 1, 5, "expected a value" },
    { "n = 1.2.3\n", 0, 1, 5, "invalid number" },
    { "n = 0xG\n", 0, 1, 5, "invalid number" },
    { "n = 0X10\n", 0, 1, 5, "invalid number" },
    { "n = 0b102\n", 0, 1, 5, "invalid number" },
    { "n = +0x10\n", 0, 1, 5, "cannot have a sign" },
    { "n = 9223372036854775808\n", 0, 1, 5, "64 bits" },
    { "n = -9223372036854775809\n", 0, 1, 5, "64 bits" },
    { "n = 0x8000000000000000\n", 0, 1, 5, "64 bits" },
    { "n = infinity\n", 0, 1, 5, "invalid number" },
    /* dates and times */
    { "d = 2023-02-29\n", 0, 1, 5, "date out of range" },
    { "d = 2023-13-01\n", 0, 1, 5, "date out of range" },
    { "d = 2023-1-01\n", 0, 1, 5, "invalid date" },
    { "t = 24:00:00\n", 0, 1, 5, "time out of range" },
    { "t = 07:32\n", 0, 1, 5, "invalid time" },
    { "d = 1979-05-27T07:32:00+7:00\n", 0, 1, 24, "invalid time offset" },
    { "t = 07:32:00Z\n", 0, 1, 13, "unexpected text after value" },
    /* structure */
    { "a = 1\nname \"x\"\n", 0, 2, 6, "expected '='" },
    { "a\n", 0, 1, 2, "expected '='" },
    { "a =\n", 0, 1, 4, "expected a value" },
    { "= 1\n", 0, 1, 1, "expected a key" },
    { "a = 1 2\n", 0, 1, 7, "unexpected text after value" },
    { "a = \"x\" y\n", 0, 1, 9, "unexpected text after value" },
    { "a = truex\n", 0, 1, 9, "unexpected text after value" },
    { "a = TRUE\n", 0, 1, 5, "expected a value" },
    { "[a] b = 1\n", 0, 1, 5, "unexpected text after table header" },
    { "[a\nb = 1\n", 0, 1, 3, "expected ']'" },
    { "[[a]\n", 0, 1, 4, "expected ']]'" },
    { "[]\n", 0, 1, 2, "expected a key" },
    { "[a.]\n", 0, 1, 4, "expected a key" },
    { "a = 1\rb = 2\n", 0, 1, 6, "carriage return" },
    { "# x\ra = 1\n", 0, 1, 4, "control character in comment" },
    { "a = [1 2]\n", 0, 1, 8, "expected ',' or ']'" },
    { "a = [1,,]\n", 0, 1, 8, "expected a value" },
    { "x = 0\na = [1, 2\n", 0, 2, 5, "unterminated array" },
    { "a = {x = 1,\ny = 2}\n", 0, 1, 12, "one line" },
    { "a = {\nx = 1}\n", 0, 1, 6, "one line" },
    { "a = {x = 1,}\n", 0, 1, 12, "trailing comma" },
    { "a = {x = 1 y = 2}\n", 0, 1, 12, "expected ',' or '}'" },
    { "a = {x = 1", 0, 1, 5, "unterminated inline table" },
    /* encoding: errors point at the offending byte, columns count code points */
    { "a = 1\nb = \"x\xff\"\n", 0, 2, 7, "invalid UTF-8" },
    { "\xc3\xa9 = \"\xc0\xaf\"\n", 0, 1, 6, "invalid UTF-8" },
    { "s = \"\xed\xa0\x80\"\n", 0, 1, 6, "invalid UTF-8" },
    { "s = \"\xf4\x90\x80\x80\"\n", 0, 1, 6, "invalid UTF-8" },
    { "s = \"\xe2\x82\"\n", 0, 1, 6, "invalid UTF-8" },
    { "'\xc3\xa9t\xc3\xa9' = 1 2\n", 0, 1, 11, "unexpected text after value" },
};

static void test_errors_have_positions(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    for (size_t i = 0; i < sizeof ERROR_CASES / sizeof *ERROR_CASES; i++) {
        const ErrorCase *c = &ERROR_CASES[i];
        TomlError err = { 0, 0, NULL };
        size_t len = c->len ? c->len : strlen(c->src);
        const TomlValue *r = parse_n(&a, c->src, len, &err);
        bool ok = !r && err.msg && strstr(err.msg, c->msg) && err.line == c->line && err.col == c->col;
        if (!ok)
            print_error("case %zu %s: got %s %u:%u \"%s\", want %u:%u \"%s\"\n", i, c->src,
                        r ? "success" : "error", err.line, err.col, err.msg ? err.msg : "",
                        c->line, c->col, c->msg);
        assert_true(ok);
    }
    arena_free(&a);
}

/* Table rules that look like errors but are valid TOML 1.0. */
static void test_valid_table_rules(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const TomlValue *r = parse_ok(&a, "[a.b.c]\nz = 1\n[a]\nb.d = 2\n");
    assert_int_at(r, "a.b.c.z", 1);
    assert_int_at(r, "a.b.d", 2);
    r = parse_ok(&a, "[[a.b]]\n[a]\nc = 1\n");
    assert_int_at(r, "a.c", 1);
    assert_int_equal(toml_len(toml_path(r, "a.b")), 1);
    r = parse_ok(&a, "[[a]]\n[a.b]\ny = 1\n[[a]]\n[a.b]\ny = 2\n");
    assert_int_equal(toml_integer(toml_path(toml_at(toml_path(r, "a"), 0), "b.y")), 1);
    assert_int_equal(toml_integer(toml_path(toml_at(toml_path(r, "a"), 1), "b.y")), 2);
    r = parse_ok(&a, "a = 1\n[b]\na = 2\n");     /* same key in another table */
    assert_int_at(r, "a", 1);
    assert_int_at(r, "b.a", 2);
    arena_free(&a);
}

static char *repeat(const char *pre, const char *unit, int n, const char *post)
{
    size_t lp = strlen(pre), lu = strlen(unit), lq = strlen(post);
    char *s = malloc(lp + lu * (size_t)n + lq + 1), *o = s;
    assert_non_null(s);
    memcpy(o, pre, lp);
    o += lp;
    for (int i = 0; i < n; i++, o += lu)
        memcpy(o, unit, lu);
    memcpy(o, post, lq + 1);
    return s;
}

static size_t max_depth(const TomlValue *v)
{
    size_t d = 0;
    for (size_t i = 0; i < toml_len(v); i++) {
        const TomlValue *c = toml_kind(v) == TOML_ARRAY ? toml_at(v, i) : NULL;
        if (toml_kind(v) == TOML_TABLE)
            toml_key_at(v, i, &c);
        size_t k = max_depth(c);
        if (k > d)
            d = k;
    }
    return toml_kind(v) == TOML_ARRAY || toml_kind(v) == TOML_TABLE ? d + 1 : 0;
}

static void expect_depth(Arena *a, char *src, bool ok, size_t depth)
{
    TomlError err;
    const TomlValue *r = toml_parse(a, src, strlen(src), &err);
    if (ok) {
        assert_non_null(r);
        assert_int_equal(max_depth(r) - 1, depth);  /* - the root */
    } else {
        assert_null(r);
        assert_int_equal(err.line, 1);
        assert_true(strstr(err.msg, "128") != NULL);
    }
    free(src);
}

static void test_depth_limit(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    char *s = repeat("a = ", "[", 128, "");
    char *t = repeat(s, "]", 128, "\n");
    free(s);
    expect_depth(&a, t, true, 128);
    s = repeat("a = ", "[", 129, "");
    t = repeat(s, "]", 129, "\n");
    free(s);
    expect_depth(&a, t, false, 0);
    /* unclosed: the limit stops the descent before the missing ']' matters */
    expect_depth(&a, repeat("a = ", "[", 100000, ""), false, 0);
    expect_depth(&a, repeat("a = ", "{b = ", 100000, ""), false, 0);
    expect_depth(&a, repeat("a = ", "[{b = ", 65, "1"), false, 0);
    /* keys: 128 parts make 127 tables, so the value may be one more container */
    expect_depth(&a, repeat("k", ".k", 127, " = 1\n"), true, 127);
    expect_depth(&a, repeat("k", ".k", 127, " = []\n"), true, 128);
    expect_depth(&a, repeat("k", ".k", 127, " = [[]]\n"), false, 0);
    expect_depth(&a, repeat("[k", ".k", 127, "]\n"), true, 128);
    expect_depth(&a, repeat("k", ".k", 128, " = 1\n"), false, 0);
    expect_depth(&a, repeat("[k", ".k", 128, "]\n"), false, 0);
    arena_free(&a);
}

static void test_input_size_limit(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    TomlError err;
    /* the length is checked before any byte is read */
    assert_null(toml_parse(&a, "", TOML_MAX_INPUT + 1, &err));
    assert_int_equal(err.line, 1);
    assert_non_null(strstr(err.msg, "larger than"));
    assert_null(toml_parse(&a, NULL, 5, &err));
    assert_non_null(err.msg);
    arena_free(&a);
}

/* ---- robustness ----------------------------------------------------------------- */

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;     /* xorshift64: fixed seed, same inputs on every run */
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Visits every value; a structural bug would show up as a crash or bad kind. */
static size_t walk(const TomlValue *v, size_t depth)
{
    assert_true(depth <= TOML_MAX_DEPTH + 1);
    TomlKind k = toml_kind(v);
    assert_true(k >= TOML_STRING && k <= TOML_TABLE);
    size_t n = 1;
    if (k == TOML_STRING || k == TOML_DATETIME)
        assert_non_null(toml_string(v, NULL));
    for (size_t i = 0; i < toml_len(v); i++) {
        const TomlValue *c = toml_at(v, i);
        if (k == TOML_TABLE)
            assert_non_null(toml_key_at(v, i, &c));
        assert_non_null(c);
        n += walk(c, depth + 1);
    }
    return n;
}

static uint32_t count_lines(const char *s, size_t len)
{
    uint32_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '\n';
    return n;
}

static void check_input(const char *src, size_t len, int *n_ok, int *n_err)
{
    Arena a;
    arena_init(&a);
    TomlError err;
    const TomlValue *r = parse_n(&a, src, len, &err);
    if (r) {
        walk(r, 0);
        ++*n_ok;
    } else {
        assert_non_null(err.msg);
        assert_true(err.line >= 1 && err.line <= count_lines(src, len));
        assert_true(err.col >= 1 && err.col <= len + 1);
        ++*n_err;
    }
    arena_free(&a);
}

static void random_input(uint64_t *seed, char *buf, size_t *len)
{
    static const char alphabet[] = "[]{}=\"'.,#\n\r\t _-+:0123456789abcdefxointruelsZT\\u";
    size_t n = next_random(seed) % 200;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_random(seed);
        buf[i] = r % 16 == 0 ? (char)(r >> 8) : alphabet[(r >> 8) % (sizeof alphabet - 1)];
    }
    *len = n;
}

/* A few edits of the realistic document: replaced bytes, inserted punctuation,
 * deleted or repeated spans, a cut. */
static void mutated_input(uint64_t *seed, char *buf, size_t *len, size_t cap)
{
    static const char punct[] = "[]{}=\"'.,#\n\\";
    size_t n = sizeof PYPROJECT - 1;
    memcpy(buf, PYPROJECT, n);
    int edits = 1 + (int)(next_random(seed) % 4);
    for (int e = 0; e < edits && n > 0; e++) {
        uint64_t r = next_random(seed);
        size_t at = (size_t)(r >> 16) % n;
        switch (r % 5) {
        case 0:
            buf[at] = (char)(r >> 8);
            break;
        case 1:
            if (n < cap) {
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = punct[(r >> 8) % (sizeof punct - 1)];
                n++;
            }
            break;
        case 2: {
            size_t k = 1 + (r >> 40) % 16;
            if (k > n - at)
                k = n - at;
            memmove(buf + at, buf + at + k, n - at - k);
            n -= k;
            break;
        }
        case 3: {
            size_t k = 1 + (r >> 40) % 32;
            if (k > n - at)
                k = n - at;
            if (n + k <= cap) {
                memmove(buf + at + k, buf + at, n - at);   /* repeats buf[at, at+k) */
                n += k;
            }
            break;
        }
        default:
            n = at;
        }
    }
    *len = n;
}

static void test_random_and_mutated_inputs(void **state)
{
    (void)state;
    enum { CAP = sizeof PYPROJECT + 256 };
    static char buf[CAP];
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    int n_ok = 0, n_err = 0;
    for (int i = 0; i < 2000; i++) {
        size_t len;
        if (i % 2)
            random_input(&seed, buf, &len);
        else
            mutated_input(&seed, buf, &len, CAP);
        check_input(buf, len, &n_ok, &n_err);
    }
    /* both outcomes occur: the parser neither accepts nor rejects everything */
    assert_true(n_ok > 50);
    assert_true(n_err > 500);
}

static void test_every_prefix(void **state)
{
    (void)state;
    int n_ok = 0, n_err = 0;
    for (size_t len = 0; len <= sizeof PYPROJECT - 1; len++)
        check_input(PYPROJECT, len, &n_ok, &n_err);
    assert_true(n_ok > 0);
    assert_true(n_err > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_strings_and_escapes),
        cmocka_unit_test(test_string_with_nul_escape),
        cmocka_unit_test(test_literal_and_multiline_strings),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_bools_and_datetimes),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_inline_tables),
        cmocka_unit_test(test_tables_and_arrays_of_tables),
        cmocka_unit_test(test_dotted_keys_create_tables),
        cmocka_unit_test(test_quoted_and_odd_keys),
        cmocka_unit_test(test_comments_crlf_bom),
        cmocka_unit_test(test_length_is_respected),
        cmocka_unit_test(test_pyproject_other_tools),
        cmocka_unit_test(test_pyproject_tool_pfc),
        cmocka_unit_test(test_header_inside_string_is_not_a_header),
        cmocka_unit_test(test_accessors_on_null_and_wrong_kind),
        cmocka_unit_test(test_large_table_lookups),
        cmocka_unit_test(test_errors_have_positions),
        cmocka_unit_test(test_valid_table_rules),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_input_size_limit),
        cmocka_unit_test(test_random_and_mutated_inputs),
        cmocka_unit_test(test_every_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
