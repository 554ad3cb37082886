/* Unit tests for the generated lexer tables: lexer/unicode_id.c and lexer/encodings_data.h.
 * Expected values were checked against CPython 3.13 (str.isidentifier, codecs.lookup,
 * and compile() with coding cookies). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "../../lexer/codecs_data.h"
#include "../../lexer/encodings.h"
#include "../../lexer/unicode_id.h"

static void test_id_start(void **state)
{
    (void)state;
    assert_true(uni_is_id_start('a'));
    assert_true(uni_is_id_start('Z'));
    assert_true(uni_is_id_start('_'));
    assert_true(uni_is_id_start(0xE9));    /* é */
    assert_true(uni_is_id_start(0x3C0));   /* π */
    assert_true(uni_is_id_start(0x4E2D));  /* 中 */
    assert_false(uni_is_id_start('0'));
    assert_false(uni_is_id_start(0x20AC)); /* € */
    assert_false(uni_is_id_start(' '));
    assert_false(uni_is_id_start('$'));
    assert_false(uni_is_id_start(0xD800)); /* surrogate */
    assert_false(uni_is_id_start(0x110000));
}

static void test_id_continue(void **state)
{
    (void)state;
    assert_true(uni_is_id_continue('0'));
    assert_false(uni_is_id_start('0'));
    assert_true(uni_is_id_continue(0x300)); /* combining grave accent */
    assert_false(uni_is_id_start(0x300));
    assert_true(uni_is_id_continue('a'));
    assert_true(uni_is_id_continue('_'));
    assert_true(uni_is_id_continue(0x4E2D));
    assert_false(uni_is_id_continue(0x20AC));
    assert_false(uni_is_id_continue(' '));
    assert_false(uni_is_id_continue('-'));
}

static void test_id_ascii(void **state)
{
    (void)state;
    for (uint32_t c = 0; c < 128; c++) {
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool digit = c >= '0' && c <= '9';
        assert_int_equal(uni_is_id_start(c), alpha || c == '_');
        assert_int_equal(uni_is_id_continue(c), alpha || digit || c == '_');
    }
}

static bool known(const char *s)
{
    return enc_is_known(s, strlen(s));
}

static void test_enc_known(void **state)
{
    (void)state;
    assert_true(known("utf-8"));
    assert_true(known("UTF-8"));
    assert_true(known("utf8"));
    assert_true(known("latin-1"));
    assert_true(known("iso-8859-15"));
    assert_true(known("cp1252"));
    assert_true(known("euc-jp"));
    assert_true(known("ascii"));
    assert_true(known(" UTF-8 "));     /* separators collapse, ends stripped */
    assert_true(known("utf--8"));
    assert_true(known("latin 1"));
    assert_true(known("iso8859.1"));   /* '.' retried as '_' for aliases */
    assert_true(known("rot13"));       /* found by codecs.lookup ... */
    assert_false(enc_is_text_encoding("rot13", 5)); /* ... but not a text encoding */
    assert_true(enc_is_text_encoding("cp1252", 6));
    assert_false(known("uft-8"));
    assert_false(known(""));
    assert_false(known("nonesuch"));
    assert_false(known("latin.1"));    /* latin_1 is a module, not an alias */
    assert_false(known("utf-8-sig-x"));
    assert_false(enc_is_known("utf-8\0", 6)); /* embedded NUL: ValueError */
    assert_true(enc_is_known("utf-8xyz", 5)); /* length is honoured */
}

static void check_normal(const char *in, const char *want)
{
    const char *got = enc_normal_name(in, strlen(in));
    if (want == NULL)
        assert_null(got);
    else {
        assert_non_null(got);
        assert_string_equal(got, want);
    }
}

static void test_enc_normal_name(void **state)
{
    (void)state;
    check_normal("utf-8", "utf-8");
    check_normal("UTF_8", "utf-8");
    check_normal("utf-8-sig", "utf-8");
    check_normal("utf-8-sig-and-a-long-tail", "utf-8"); /* only 12 chars looked at */
    check_normal("latin-1", "iso-8859-1");
    check_normal("Latin_1", "iso-8859-1");
    check_normal("iso-8859-1", "iso-8859-1");
    check_normal("iso-latin-1", "iso-8859-1");
    check_normal("latin-1-foo", "iso-8859-1");
    check_normal("iso-8859-1-x", "iso-8859-1");
    check_normal("iso-latin-1-xx", "iso-8859-1");
    check_normal("utf8", NULL);
    check_normal("utf-8x", NULL);
    check_normal("latin1", NULL);
    check_normal("iso-8859-15", NULL);
    check_normal("cp1252", NULL);
    check_normal("", NULL);
    assert_string_equal(enc_normal_name("utf-8-sig", 5), "utf-8");
}

static void test_enc_utf8(void **state)
{
    (void)state;
    assert_true(enc_is_utf8("utf8", 4));
    assert_true(enc_is_utf8("UTF-8", 5));
    assert_true(enc_is_utf8("u8", 2));
    assert_true(enc_is_utf8("cp65001", 7));
    assert_false(enc_is_utf8("latin-1", 7));
    assert_false(enc_is_utf8("utf-8-sig", 9)); /* its own codec; normalise first */
    assert_false(enc_is_utf8("uft-8", 5));
}

/* lexer/codecs_data.h is indexed by the name table of lexer/encodings_data.h: the two
 * generated files must come from the same table. */
static void test_codecs_follow_name_table(void **state)
{
    (void)state;
    size_t n = sizeof codec_of_name / sizeof codec_of_name[0];
    for (size_t i = 0; i < n; i++) {
        const char *name = codec_of_name[i].name;
        assert_int_equal(enc_lookup_index(name, strlen(name)), (int)i);
    }
    int i = enc_lookup_index("ISO8859.1", 9); /* through the dotted alias */
    assert_true(i >= 0 && (size_t)i < n);
    assert_string_equal(codec_table[codec_of_name[i].codec].name, "iso8859-1");
    i = enc_lookup_index("utf-8", 5);         /* not checked: utf-8 is the default */
    assert_int_equal(codec_of_name[i].codec, NO_CODEC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_id_start),
        cmocka_unit_test(test_id_continue),
        cmocka_unit_test(test_id_ascii),
        cmocka_unit_test(test_enc_known),
        cmocka_unit_test(test_enc_normal_name),
        cmocka_unit_test(test_enc_utf8),
        cmocka_unit_test(test_codecs_follow_name_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
