/* Encoders written from their specifications: Base64 (RFC 4648, section 4) and UTF-8
   (RFC 3629). Bytes come in as char elements, code points as int32 elements; the
   output elements are bytes 0..255. */
#include <tracelearn.h>

static int b64(int v) {
    return v < 26 ? 'A' + v : v < 52 ? 'a' + v - 26 : v < 62 ? '0' + v - 52 : v == 62 ? '+' : '/';
}

/* Three bytes make four characters; at the end one or two left-over bytes are padded
   with '='. The state is where in the group of three the next byte falls, and the
   byte before it. */
void base64_encode(void) {
    int phase = 0, prev = 0;
    while (!tl_eof()) {
        int b = tl_in() & 0xFF;
        if (phase == 0) {
            tl_out(b64(b >> 2));
        } else if (phase == 1) {
            tl_out(b64(((prev & 3) << 4) | (b >> 4)));
        } else {
            tl_out(b64(((prev & 15) << 2) | (b >> 6)));
            tl_out(b64(b & 63));
        }
        prev = b;
        phase = phase == 2 ? 0 : phase + 1;
    }
    if (phase == 1) {
        tl_out(b64((prev & 3) << 4));
        tl_out('=');
        tl_out('=');
    } else if (phase == 2) {
        tl_out(b64((prev & 15) << 2));
        tl_out('=');
    }
}

/* A code point becomes one to four bytes; a surrogate or a value outside
   0..0x10FFFF becomes U+FFFD (EF BF BD). */
void utf8_encode(void) {
    while (1) {
        int c = tl_in();
        if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
            tl_out(0xEF);
            tl_out(0xBF);
            tl_out(0xBD);
        } else if (c < 0x80) {
            tl_out(c);
        } else if (c < 0x800) {
            tl_out(0xC0 | (c >> 6));
            tl_out(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            tl_out(0xE0 | (c >> 12));
            tl_out(0x80 | ((c >> 6) & 0x3F));
            tl_out(0x80 | (c & 0x3F));
        } else {
            tl_out(0xF0 | (c >> 18));
            tl_out(0x80 | ((c >> 12) & 0x3F));
            tl_out(0x80 | ((c >> 6) & 0x3F));
            tl_out(0x80 | (c & 0x3F));
        }
    }
}

/* Each element doubled, written c * 2 until a '!' and c << 1 after it ('!' toggles):
   the two modes write the same function in two texts (z3 keeps 2*x and a concat),
   so a table comparing entries as text sees two states, and as functions one. */
void double_two_ways(void) {
    int shift = 0;
    while (1) {
        int c = tl_in();
        if (c == '!')
            shift = !shift;
        else
            tl_out(shift ? c << 1 : c * 2);
    }
}

/* The input copied, an 'a' written as c until a '!' and as the constant 'a' after it:
   the same output wherever the step's guard (c == 'a') holds, different text. */
void echo_two_ways(void) {
    int constant = 0;
    while (1) {
        int c = tl_in();
        if (c == '!')
            constant = !constant;
        else if (c == 'a')
            tl_out(constant ? 'a' : c);
        else
            tl_out(c);
    }
}
