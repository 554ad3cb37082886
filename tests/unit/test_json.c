/* Unit tests for base/json.c: every value kind, spans into the input, string
 * escapes both ways, errors with their positions, the depth limit, UTF-8 and
 * NUL checks, and robustness over random and mutated inputs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../base/arena.h"
#include "../../base/buf.h"
#include "../../base/json.h"
#include "../../base/rand.h"

/* Parses from an exact-size heap copy, so that reading past len is visible to
 * AddressSanitizer (the reader must not rely on a terminating NUL). */
static const JsonValue *parse_n(Arena *a, const char *src, size_t len, JsonError *err)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, src, len);
    const JsonValue *v = json_parse(a, copy, len, err);
    free(copy);   /* the tree must not point into the input */
    return v;
}

static const JsonValue *parse_ok(Arena *a, const char *src)
{
    JsonError err;
    const JsonValue *v = parse_n(a, src, strlen(src), &err);
    if (!v)
        print_error("unexpected error %u:%u: %s\n", err.line, err.col, err.msg);
    assert_non_null(v);
    assert_null(err.msg);
    return v;
}

/* The error at line:col whose message contains `part`. */
static void parse_fails(const char *src, size_t len, uint32_t line, uint32_t col, const char *part)
{
    Arena a;
    arena_init(&a);
    JsonError err;
    const JsonValue *v = parse_n(&a, src, len, &err);
    if (v || err.line != line || err.col != col || !strstr(err.msg, part))
        print_error("%s: got %u:%u: %s\n", src, err.line, err.col, err.msg ? err.msg : "(none)");
    assert_null(v);
    assert_int_equal(err.line, line);
    assert_int_equal(err.col, col);
    assert_non_null(strstr(err.msg, part));
    arena_free(&a);
}

static char *canonical(Arena *a, const char *src)
{
    const JsonValue *v = parse_ok(a, src);
    Buf b = {0};
    json_write(&b, v, src);
    char *s = arena_strndup(a, b.v, b.n);
    buf_free(&b);
    return s;
}

/* ---- values --------------------------------------------------------------------- */

static void test_scalars(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    assert_int_equal(json_kind(parse_ok(&a, "null")), JSON_NULL);
    const JsonValue *t = parse_ok(&a, " true ");
    assert_int_equal(json_kind(t), JSON_BOOL);
    assert_true(t->boolean);
    assert_int_equal(t->start, 1);
    assert_int_equal(t->end, 5);
    assert_false(parse_ok(&a, "false")->boolean);
    const char *nums[] = {"0", "-0", "12", "-3.25", "1e9", "2E-3", "6.02e+23", "NaN", "Infinity",
                          "-Infinity"};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        const JsonValue *n = parse_ok(&a, nums[i]);
        assert_int_equal(json_kind(n), JSON_NUMBER);
        assert_int_equal(n->end - n->start, strlen(nums[i]));
    }
    arena_free(&a);
}

static void test_strings_and_escapes(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    uint32_t n;
    const JsonValue *s = parse_ok(&a, "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"");
    assert_string_equal(json_string(s, &n), "a\"b\\c/d\b\f\n\r\t");
    assert_int_equal(n, 12);
    assert_string_equal(json_string(parse_ok(&a, "\"\\u00e9\\u20ac\""), NULL), "\xc3\xa9\xe2\x82\xac");
    assert_string_equal(json_string(parse_ok(&a, "\"\\ud83d\\ude00\""), NULL), "\xf0\x9f\x98\x80");
    assert_string_equal(json_string(parse_ok(&a, "\"caf\xc3\xa9\""), NULL), "caf\xc3\xa9");
    s = parse_ok(&a, "\"x\\u0000y\"");   /* an escaped NUL is text like any other */
    json_string(s, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(s->str, "x\0y", 3);
    assert_true(json_is(parse_ok(&a, "\"\""), ""));
    arena_free(&a);
}

static void test_containers_and_spans(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const char *src = "{\"cells\": [1, {\"k\": [true]}, \"s\"], \"e\": {}, \"l\": []}";
    const JsonValue *root = parse_ok(&a, src);
    assert_int_equal(json_kind(root), JSON_OBJECT);
    assert_int_equal(json_count(root), 3);
    const JsonValue *cells = json_get(root, "cells");
    assert_int_equal(json_count(cells), 3);
    assert_int_equal(cells->start, 10);
    assert_int_equal(src[cells->end - 1], ']');
    assert_int_equal(json_kind(json_at(json_get(json_at(cells, 1), "k"), 0)), JSON_BOOL);
    const JsonValue *s = json_at(cells, 2);
    assert_memory_equal(src + s->start, "\"s\"", 3);
    assert_int_equal(json_count(json_get(root, "e")), 0);
    assert_int_equal(json_kind(json_get(root, "l")), JSON_ARRAY);
    arena_free(&a);
}

static void test_duplicate_keys_last_wins(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const JsonValue *root = parse_ok(&a, "{\"a\": 1, \"b\": 2, \"a\": \"x\"}");
    assert_true(json_is(json_get(root, "a"), "x"));
    /* Python's dict: the first place, the last value */
    assert_string_equal(canonical(&a, "{\"a\": 1, \"b\": 2, \"a\": 3}"), "{\"a\": 3, \"b\": 2}");
    arena_free(&a);
}

static void test_accessors_on_null_and_wrong_kind(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const JsonValue *num = parse_ok(&a, "[1]");
    assert_null(json_get(NULL, "x"));
    assert_null(json_get(num, "x"));
    assert_null(json_at(num, 1));
    assert_null(json_at(NULL, 0));
    assert_null(json_string(json_at(num, 0), NULL));
    assert_false(json_is(NULL, ""));
    assert_int_equal(json_count(NULL), 0);
    assert_int_equal(json_kind(NULL), JSON_NONE);
    arena_free(&a);
}

/* ---- writing -------------------------------------------------------------------- */

static void test_canonical_form(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    assert_string_equal(canonical(&a, "{ \"a\" :[1.50,-2e3 , null,true],\"b\":{\"c\":\"\\u00e9\"}}"),
                        "{\"a\": [1.50, -2e3, null, true], \"b\": {\"c\": \"\xc3\xa9\"}}");
    assert_string_equal(canonical(&a, "\"\\u0001\\u007f/\""), "\"\\u0001\x7f/\"");
    arena_free(&a);
}

static char *put_string(const char *s, size_t n, bool ascii)
{
    Buf b = {0};
    json_put_string(&b, s, n, ascii);
    buf_putc(&b, 0);
    return b.v;
}

static void test_put_string_as_python_dumps(void **state)
{
    (void)state;
    /* json.dumps(s, ensure_ascii=False) and json.dumps(s) of the same text */
    const char text[] = "tab\tq\"b\\ \x01 caf\xc3\xa9 \xf0\x9f\x98\x80\n";
    char *u = put_string(text, sizeof text - 1, false);
    assert_string_equal(u, "\"tab\\tq\\\"b\\\\ \\u0001 caf\xc3\xa9 \xf0\x9f\x98\x80\\n\"");
    free(u);
    char *e = put_string(text, sizeof text - 1, true);
    assert_string_equal(e, "\"tab\\tq\\\"b\\\\ \\u0001 caf\\u00e9 \\ud83d\\ude00\\n\"");
    free(e);
    char *z = put_string("a\0b", 3, false);
    assert_string_equal(z, "\"a\\u0000b\"");
    free(z);
}

/* ---- errors ----------------------------------------------------------------------- */

static void test_errors_with_positions(void **state)
{
    (void)state;
    parse_fails("", 0, 1, 1, "unexpected end of input");
    parse_fails("{\"a\": 1,\n \"b\" 2}", 16, 2, 6, "expected ':'");
    parse_fails("[1 2]", 5, 1, 4, "expected ',' or ']'");
    parse_fails("{\"a\": 1", 7, 1, 8, "unterminated object");
    parse_fails("[1,]", 4, 1, 4, "expected a value");
    parse_fails("{\"a\": 1,}", 9, 1, 9, "expected a string key");
    parse_fails("\"abc", 4, 1, 1, "unterminated string");
    parse_fails("\"a\\qb\"", 6, 1, 3, "invalid escape");
    parse_fails("\"\\u12\"", 6, 1, 2, "four hex digits");
    parse_fails("\"\\ud800x\"", 9, 1, 2, "surrogate");
    parse_fails("\"\\udc00\"", 8, 1, 2, "surrogate");
    parse_fails("01", 2, 1, 2, "extra data");
    parse_fails("-", 1, 1, 1, "invalid number");
    parse_fails("1.", 2, 1, 1, "digits must follow '.'");
    parse_fails("1e+", 3, 1, 1, "exponent");
    parse_fails("tru", 3, 1, 1, "expected a value");
    parse_fails("{} {}", 5, 1, 4, "extra data");
    parse_fails("\"a\nb\"", 5, 1, 3, "control character");
}

static void test_utf8_and_nul_refused_where_they_are(void **state)
{
    (void)state;
    parse_fails("[\"ok\",\n \"caf\xc3\xa9 \xff\"]", 17, 2, 8, "invalid UTF-8");
    parse_fails("\"\xc0\xaf\"", 4, 1, 2, "invalid UTF-8");            /* overlong '/' */
    parse_fails("\"\xed\xa0\x80\"", 5, 1, 2, "invalid UTF-8");        /* a surrogate */
    parse_fails("\"\xf4\x90\x80\x80\"", 6, 1, 2, "invalid UTF-8");    /* past U+10FFFF */
    parse_fails("\"\xe2\x82\"", 4, 1, 2, "invalid UTF-8");            /* cut short */
    parse_fails("[1,\n\0]", 6, 2, 1, "NUL byte");
    parse_fails("\"a\0\"", 4, 1, 3, "NUL byte");
    parse_fails("{}\0", 3, 1, 3, "NUL byte");
    parse_fails("\xc3\xa9", 2, 1, 1, "non-ASCII");
}

static void test_bom_is_read(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const JsonValue *v = parse_ok(&a, "\xef\xbb\xbf{\"a\": []}");
    assert_int_equal(v->start, 3);
    arena_free(&a);
}

static char *nested(int depth, size_t *len)
{
    char *s = malloc((size_t)depth * 2 + 1);
    assert_non_null(s);
    memset(s, '[', (size_t)depth);
    memset(s + depth, ']', (size_t)depth);
    *len = (size_t)depth * 2;
    return s;
}

static void test_depth_limit(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    size_t len;
    char *ok = nested(JSON_MAX_DEPTH, &len);
    JsonError err;
    assert_non_null(json_parse(&a, ok, len, &err));
    free(ok);
    char *deep = nested(100000, &len);
    assert_null(json_parse(&a, deep, len, &err));
    assert_int_equal(err.col, JSON_MAX_DEPTH + 1);
    assert_non_null(strstr(err.msg, "nesting"));
    free(deep);
    arena_free(&a);
}

/* ---- robustness ------------------------------------------------------------------- */

static const char SAMPLE[] =
    "{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"x = 1\\n\", \"caf\xc3\xa9\"], "
    "\"outputs\": [], \"n\": -1.5e3}], \"metadata\": {\"k\": [null, true, false, \"\\ud83d\\ude00\"]}}";

static void test_random_and_mutated_inputs(void **state)
{
    (void)state;
    static const char alphabet[] = "{}[],:\"\\ -0123456789.eE+tfnulrsaNI\xc3\xa9\xff\n\0";
    uint32_t seed = 12345;
    char buf[512];
    for (int round = 0; round < 20000; round++) {
        size_t len;
        if (round % 2) {
            len = xorshift_next(&seed) % 64;
            for (size_t i = 0; i < len; i++)
                buf[i] = alphabet[xorshift_next(&seed) % (sizeof alphabet - 1)];
        } else {
            len = sizeof SAMPLE - 1;
            memcpy(buf, SAMPLE, len);
            for (int e = 0; e < 1 + (int)(xorshift_next(&seed) % 3) && len; e++) {
                size_t at = xorshift_next(&seed) % len;
                if (xorshift_next(&seed) % 2)
                    buf[at] = alphabet[xorshift_next(&seed) % (sizeof alphabet - 1)];
                else
                    len = at;   /* cut */
            }
        }
        Arena a;
        arena_init(&a);
        JsonError err;
        const JsonValue *v = parse_n(&a, buf, len, &err);
        if (v) {
            assert_true(v->start <= v->end && v->end <= len);
            Buf b = {0};
            json_write(&b, v, buf);
            buf_free(&b);
        } else {
            assert_non_null(err.msg);
            assert_true(err.offset <= len && err.line >= 1 && err.col >= 1);
        }
        arena_free(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_strings_and_escapes),
        cmocka_unit_test(test_containers_and_spans),
        cmocka_unit_test(test_duplicate_keys_last_wins),
        cmocka_unit_test(test_accessors_on_null_and_wrong_kind),
        cmocka_unit_test(test_canonical_form),
        cmocka_unit_test(test_put_string_as_python_dumps),
        cmocka_unit_test(test_errors_with_positions),
        cmocka_unit_test(test_utf8_and_nul_refused_where_they_are),
        cmocka_unit_test(test_bom_is_read),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_random_and_mutated_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
