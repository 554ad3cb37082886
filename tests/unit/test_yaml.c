/* Unit tests for base/yaml.c: the subset training configs use (nested
 * mappings, scalars, quoted strings, lists, comments), and errors with a
 * line number for malformed or unsupported input, never a crash (random
 * and truncated inputs included). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../base/arena.h"
#include "../../base/yaml.h"

/* Parses from an exact-size heap copy, so that reading past len is visible to
 * AddressSanitizer (the reader must not rely on a terminating NUL). */
static const YamlValue *parse_n(Arena *a, const char *src, size_t len, YamlError *err)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, src, len);
    const YamlValue *root = yaml_parse(a, copy, len, err);
    free(copy);
    return root;
}

static const YamlValue *parse_ok(Arena *a, const char *src)
{
    YamlError err;
    const YamlValue *root = parse_n(a, src, strlen(src), &err);
    if (!root)
        print_error("unexpected error line %u: %s\n", err.line, err.msg);
    assert_non_null(root);
    return root;
}

static void expect_error(const char *src, uint32_t line, const char *msg_part)
{
    Arena a;
    arena_init(&a);
    YamlError err = {0, NULL};
    assert_null(parse_n(&a, src, strlen(src), &err));
    assert_non_null(err.msg);
    if (err.line != line || !strstr(err.msg, msg_part))
        print_error("%s: got line %u '%s'\n", src, err.line, err.msg);
    assert_int_equal(err.line, line);
    assert_non_null(strstr(err.msg, msg_part));
    arena_free(&a);
}

static const char *str_at(const YamlValue *map, const char *key)
{
    const YamlValue *v = yaml_get(map, key);
    assert_int_equal(yaml_kind(v), YAML_SCALAR);
    return v->str;
}

static void test_flat_and_nested(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const YamlValue *root = parse_ok(&a, "---\n# a config\nmodel_name_or_path: gpt2   # comment\n"
                                         "train:\n  batch_size: 8\n  bf16: true\n\n"
                                         "  lr: 1e-4\nempty:\nlast: x#not-a-comment\n");
    assert_int_equal(yaml_kind(root), YAML_MAP);
    assert_int_equal(root->n, 4);
    assert_string_equal(str_at(root, "model_name_or_path"), "gpt2");
    const YamlValue *train = yaml_get(root, "train");
    assert_int_equal(yaml_kind(train), YAML_MAP);
    assert_string_equal(str_at(train, "batch_size"), "8");
    assert_string_equal(str_at(train, "bf16"), "true");
    assert_string_equal(str_at(train, "lr"), "1e-4");
    assert_int_equal(yaml_get(train, "lr")->line, 8);
    assert_int_equal(yaml_kind(yaml_get(root, "empty")), YAML_NULL);
    assert_string_equal(str_at(root, "last"), "x#not-a-comment");
    assert_null(yaml_get(root, "missing"));
    assert_null(yaml_get(NULL, "x"));
    arena_free(&a);
}

static void test_quotes_lists_duplicates(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const YamlValue *root = parse_ok(&a, "a: 'it''s # here'\nb: \"q\\\"x\"\n\"c d\": 1\n"
                                         "targets: [q_proj, 'v_proj' , 3]\nnone: []\n"
                                         "modules:\n- fc1\n- fc2\nk: 1\nk: 2\nn: ~\n");
    assert_string_equal(str_at(root, "a"), "it's # here");
    assert_true(yaml_get(root, "a")->quoted);
    assert_string_equal(str_at(root, "b"), "q\"x");
    assert_string_equal(str_at(root, "c d"), "1");
    const YamlValue *t = yaml_get(root, "targets");
    assert_int_equal(yaml_kind(t), YAML_SEQ);
    assert_int_equal(t->n, 3);
    assert_string_equal(t->items[1]->str, "v_proj");
    assert_string_equal(t->items[2]->str, "3");
    assert_int_equal(yaml_get(root, "none")->n, 0);
    const YamlValue *m = yaml_get(root, "modules");
    assert_int_equal(yaml_kind(m), YAML_SEQ);
    assert_int_equal(m->n, 2);
    assert_string_equal(m->items[1]->str, "fc2");
    assert_string_equal(str_at(root, "k"), "2");   /* the last one wins */
    assert_int_equal(yaml_kind(yaml_get(root, "n")), YAML_NULL);
    arena_free(&a);
}

static void test_documents_without_a_map(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    assert_int_equal(yaml_kind(parse_ok(&a, "")), YAML_NULL);
    assert_int_equal(yaml_kind(parse_ok(&a, "# only a comment\n\n")), YAML_NULL);
    assert_int_equal(yaml_kind(parse_ok(&a, "- a\n- b\n")), YAML_SEQ);
    assert_string_equal(parse_ok(&a, "hello")->str, "hello");
    arena_free(&a);
}

static void test_errors_have_lines(void **state)
{
    (void)state;
    expect_error("a: 1\n\tb: 2\n", 2, "tab");
    expect_error("a: [1, 2\n", 1, "unterminated [");
    expect_error("a: 1\nb: 'open\n", 2, "unterminated quoted");
    expect_error("a: 1\n   b: 2\n", 2, "indentation");
    expect_error("a:\n    b: 1\n  c: 2\n", 3, "indentation");
    expect_error("a: 1\njust words\n", 2, "not `key: value`");
    expect_error("a: &anchor 1\n", 1, "anchor");
    expect_error("a: |\n  text\n", 1, "block scalar");
    expect_error("a: {b: 1}\n", 1, "flow mapping");
    expect_error("a: [[1]]\n", 1, "nested flow");
    expect_error("l:\n- x: 1\n", 2, "list of mappings");
    expect_error("a: 1\n---\nb: 2\n", 2, "more than one document");
    expect_error("a: 1\n- b\n", 2, "list item");
    expect_error("a: \"x\" y\n", 1, "after a quoted");
    expect_error(": 1\n", 1, "empty key");
}

static void test_nul_and_depth(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    YamlError err;
    assert_null(parse_n(&a, "a: 1\nb: x\0y\n", 11, &err));
    assert_int_equal(err.line, 2);
    char deep[4096] = "";
    size_t n = 0;
    for (int d = 0; d < YAML_MAX_DEPTH + 5; d++)
        n += (size_t)snprintf(deep + n, sizeof deep - n, "%*sk:\n", d, "");
    assert_null(parse_n(&a, deep, n, &err));
    assert_non_null(strstr(err.msg, "deeper"));
    arena_free(&a);
}

/* Random bytes from the subset's alphabet and every prefix of a real config:
 * a tree or an error, never a crash or a read outside the input. */
static void test_random_and_truncated(void **state)
{
    (void)state;
    static const char alphabet[] = "ab: -'\"#[],\n\t~&{}|\\1";
    const char *config = "model:\n  name: 'gpt2'  # m\n  layers: [1, 2]\nlist:\n- a\n- \"b\"\nx: ~\n";
    unsigned seed = 12345;
    char buf[128];
    for (int round = 0; round < 20000; round++) {
        Arena a;
        arena_init(&a);
        size_t n = (size_t)(round % 97);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        YamlError err = {0, NULL};
        const YamlValue *v = parse_n(&a, buf, n, &err);
        assert_true(v != NULL || (err.msg && err.line >= 1));
        arena_free(&a);
    }
    for (size_t n = 0; n <= strlen(config); n++) {
        Arena a;
        arena_init(&a);
        YamlError err = {0, NULL};
        const YamlValue *v = parse_n(&a, config, n, &err);
        assert_true(v != NULL || (err.msg && err.line >= 1));
        arena_free(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_and_nested),
        cmocka_unit_test(test_quotes_lists_duplicates),
        cmocka_unit_test(test_documents_without_a_map),
        cmocka_unit_test(test_errors_have_lines),
        cmocka_unit_test(test_nul_and_depth),
        cmocka_unit_test(test_random_and_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
