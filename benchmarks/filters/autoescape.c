/* Google AutoEscape's modifiers (ctemplate, src/template_modifiers.cc, repository
   OlafvdSpek/ctemplate at the commit named in benchmarks/ctemplate/files.txt) as stream
   filters, written for tracelearn's benchmark after the loops and guards of that file:
   one element in, its escape out. The C++ sees the whole string at once; where it looks
   ahead (memcmp, memchr, a UTF-8 code unit, "the last character"), the filter keeps what
   it has seen and decides when the next element, or the end of the input, comes.
   benchmarks/ctemplate_vectors.py checks them against ctemplate's unit tests. */
#include <tracelearn.h>

static void emit(const char *s) {
    while (*s)
        tl_out(*s++);
}

static int is_alnum(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void html_escape_char(int c) {
    switch (c) {
    case '&': emit("&amp;"); break;
    case '"': emit("&quot;"); break;
    case '\'': emit("&#39;"); break;
    case '<': emit("&lt;"); break;
    case '>': emit("&gt;"); break;
    case '\r': case '\n': case '\v': case '\f': case '\t': emit(" "); break;
    default: tl_out(c);
    }
}

void html_escape(void) {
    while (1)
        html_escape_char(tl_in());
}

void pre_escape(void) {
    while (1) {
        int c = tl_in();
        switch (c) {
        case '&': emit("&amp;"); break;
        case '"': emit("&quot;"); break;
        case '\'': emit("&#39;"); break;
        case '<': emit("&lt;"); break;
        case '>': emit("&gt;"); break;
        default: tl_out(c);
        }
    }
}

/* '=' stays, but as the first or the last character, where it becomes '_': an '=' is
   held until the next element shows it was not the last. */
void cleanse_attribute(void) {
    int first = 1, held = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (held)
            tl_out('=');
        held = 0;
        switch (c) {
        case '=':
            if (first)
                tl_out('_');
            else
                held = 1;
            break;
        case '-': case '.': case '_': case ':': tl_out(c); break;
        default:
            if (is_alnum(c))
                tl_out(c);
            else
                tl_out('_');
        }
        first = 0;
    }
    if (held)
        tl_out('_');
}

void cleanse_css(void) {
    while (1) {
        int c = tl_in();
        switch (c) {
        case ' ': case '_': case '.': case ',': case '!': case '#': case '%': case '-': tl_out(c); break;
        default:
            if (is_alnum(c))
                tl_out(c);
        }
    }
}

/* The escape of a code unit of value v below 0x100, or 0 when it has none. */
static const char *js_escape_of(int v) {
    switch (v) {
    case 0: return "\\x00";
    case '"': return "\\x22";
    case '\'': return "\\x27";
    case '\\': return "\\\\";
    case '\t': return "\\t";
    case '\r': return "\\r";
    case '\n': return "\\n";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '&': return "\\x26";
    case '<': return "\\x3c";
    case '>': return "\\x3e";
    case '=': return "\\x3d";
    case '\v': return "\\x0b";
    default: return 0;
    }
}

/* The C++ reads UTF-8 code units (a lead C0-DF takes one continuation byte, E0-EF two,
   anything malformed or truncated is one byte) and escapes by the unit's value: the
   one-byte escapes, also for overlong units such as C0 A2 (a '"'), and U+2028 and
   U+2029 (E2 80 A8, E2 80 A9). Only units that start C0, C1, E0 80, E0 81 or E2 80 can
   have such a value, so the filter holds those leads until the unit is complete; a
   unit with no escape goes through byte for byte. */
void javascript_escape(void) {
    /* n bytes held: the lead h0, then h1 (cleared when let go: a state that keeps an
       old element would look back without bound) */
    int n = 0, h0 = 0, h1 = 0;
    while (!tl_eof()) {
        int c = tl_in();
        int b = c & 0xFF;
        if (n > 0) {
            int lead = h0 & 0xFF;
            if ((b & 0xC0) == 0x80) {
                if (n == 1 && ((lead == 0xE0 && (b == 0x80 || b == 0x81)) || (lead == 0xE2 && b == 0x80))) {
                    h1 = c;
                    n = 2;
                    continue;
                }
                if (lead == 0xC0 || lead == 0xC1 || n == 2) {
                    int v = n == 1 ? ((lead & 0x1F) << 6) | (b & 0x3F)
                                   : ((lead & 0x0F) << 12) | ((h1 & 0x3F) << 6) | (b & 0x3F);
                    const char *e = v == 0x2028 ? "\\u2028" : v == 0x2029 ? "\\u2029" : js_escape_of(v);
                    if (e) {
                        emit(e);
                    } else {
                        tl_out(h0);
                        if (n == 2)
                            tl_out(h1);
                        tl_out(c);
                    }
                    n = h0 = h1 = 0;
                    continue;
                }
            }
            /* no unit with an escape: the held bytes go through, c starts afresh */
            tl_out(h0);
            if (n == 2)
                tl_out(h1);
            n = h0 = h1 = 0;
        }
        if (b == 0xC0 || b == 0xC1 || b == 0xE0 || b == 0xE2) {
            h0 = c;
            n = 1;
            continue;
        }
        const char *e = b < 0x80 ? js_escape_of(b) : 0;
        if (e)
            emit(e);
        else
            tl_out(c);
    }
    if (n > 0)
        tl_out(h0);
    if (n == 2)
        tl_out(h1);
}

void json_escape(void) {
    while (1) {
        int c = tl_in();
        switch (c) {
        case '"': emit("\\\""); break;
        case '\\': emit("\\\\"); break;
        case '/': emit("\\/"); break;
        case '\b': emit("\\b"); break;
        case '\f': emit("\\f"); break;
        case '\n': emit("\\n"); break;
        case '\r': emit("\\r"); break;
        case '\t': emit("\\t"); break;
        case '&': emit("\\u0026"); break;
        case '<': emit("\\u003C"); break;
        case '>': emit("\\u003E"); break;
        default: tl_out(c);
        }
    }
}

/* Everything but [0-9a-zA-Z.,_*~!()/-] is escaped as %XX, a space as '+'. */
void url_query_escape(void) {
    while (1) {
        unsigned char c = (unsigned char)tl_in();
        if (c == ' ') {
            tl_out('+');
        } else if (is_alnum(c) || c == '.' || c == ',' || c == '_' || c == '*' || c == '/' || c == '~'
                   || c == '!' || c == '(' || c == ')' || c == '-') {
            tl_out(c);
        } else {
            int hi = c >> 4, lo = c & 15;
            tl_out('%');
            tl_out(hi < 10 ? hi + '0' : hi - 10 + 'A');
            tl_out(lo < 10 ? lo + '0' : lo - 10 + 'A');
        }
    }
}

/* Control characters below 0x20 but \t, \r and \n become a space (XML has no such
   characters); the five markup characters are escaped. */
void xml_escape(void) {
    while (1) {
        int c = tl_in();
        if (c >= 0 && c < 0x20 && c != '\t' && c != '\r' && c != '\n') {
            tl_out(' ');
            continue;
        }
        switch (c) {
        case '&': emit("&amp;"); break;
        case '"': emit("&quot;"); break;
        case '\'': emit("&#39;"); break;
        case '<': emit("&lt;"); break;
        case '>': emit("&gt;"); break;
        default: tl_out(c);
        }
    }
}

/* After each line break (\n, \r, or \r\n as one) the prefix, "> " unless PREFIX is
   defined (ctemplate passes it as the modifier's argument). A \r may start a \r\n:
   the prefix waits for the next element, or the end. */
#ifndef PREFIX
#define PREFIX "> "
#endif
void prefix_line(void) {
    int after_cr = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (after_cr && c != '\n')
            emit(PREFIX);
        tl_out(c);
        after_cr = 0;
        if (c == '\n')
            emit(PREFIX);
        else if (c == '\r')
            after_cr = 1;
    }
    if (after_cr)
        emit(PREFIX);
}

/* CssUrlEscape: the characters that could leave url(...) or a STYLE element become %XX. */
static void css_url_escape_char(int c) {
    switch (c) {
    case '\n': emit("%0A"); break;
    case '\r': emit("%0D"); break;
    case '"': emit("%22"); break;
    case '\'': emit("%27"); break;
    case '(': emit("%28"); break;
    case ')': emit("%29"); break;
    case '*': emit("%2A"); break;
    case '<': emit("%3C"); break;
    case '>': emit("%3E"); break;
    case '\\': emit("%5C"); break;
    default: tl_out(c);
    }
}

void css_url_escape(void) {
    while (1)
        css_url_escape_char(tl_in());
}

/* The modifiers below decide on the whole input before they write anything, so the
   filter keeps the input (up to WHOLE_MAX elements: a longer input is outside these C
   versions, the C++ has no limit) and writes at its end. What they write depends on
   every element read: no bounded lookback, outside the class learn-filter learns, and
   it says so. */
#define WHOLE_MAX 4096

static int lower(int c) {
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int starts_with(const char *in, int n, const char *prefix) {
    int i = 0;
    for (; prefix[i]; i++)
        if (i >= n || lower(in[i]) != prefix[i])
            return 0;
    return n > i; /* the C++ wants more than the prefix */
}

/* ValidateUrl: a colon before the first slash names a protocol; anything but http://,
   https:// or ftp:// is replaced by a safe URL. Then the chained escape. */
static void validate_url(const char *replacement, int css) {
    char in[WHOLE_MAX];
    int n = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (n < WHOLE_MAX)
            in[n++] = c;
    }
    int colon = 0;
    for (int i = 0; i < n && in[i] != '/'; i++)
        if (in[i] == ':')
            colon = 1;
    if (colon && !starts_with(in, n, "http://") && !starts_with(in, n, "https://") && !starts_with(in, n, "ftp://")) {
        for (int i = 0; replacement[i]; i++)
            css ? css_url_escape_char(replacement[i]) : html_escape_char(replacement[i]);
        return;
    }
    for (int i = 0; i < n; i++)
        css ? css_url_escape_char(in[i]) : html_escape_char(in[i]);
}

void validate_url_and_html_escape(void) { validate_url("#", 0); }
void validate_url_and_css_escape(void) { validate_url("#", 1); }
void validate_img_src_url_and_html_escape(void) { validate_url("/images/cleardot.gif", 0); }
void validate_img_src_url_and_css_escape(void) { validate_url("/images/cleardot.gif", 1); }

static int is_hex(int c) {
    return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || (c >= '0' && c <= '9');
}

/* JavascriptNumber: the input itself when it is true, false, a hex number 0x... or
   made of [0-9+-.eE] only; else null. */
void javascript_number(void) {
    char in[WHOLE_MAX];
    int n = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (n < WHOLE_MAX)
            in[n++] = c;
    }
    if (n == 0)
        return;
    int valid = 1;
    if (n == 4 && in[0] == 't' && in[1] == 'r' && in[2] == 'u' && in[3] == 'e') {
        valid = 1;
    } else if (n == 5 && in[0] == 'f' && in[1] == 'a' && in[2] == 'l' && in[3] == 's' && in[4] == 'e') {
        valid = 1;
    } else if (in[0] == '0' && n > 2 && (in[1] == 'x' || in[1] == 'X')) {
        for (int i = 2; i < n; i++)
            if (!is_hex(in[i]))
                valid = 0;
    } else {
        for (int i = 0; i < n; i++) {
            int c = in[i];
            if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E'))
                valid = 0;
        }
    }
    if (valid) {
        for (int i = 0; i < n; i++)
            tl_out(in[i]);
    } else {
        emit("null");
    }
}

/* SnippetEscape: HtmlEscape that lets through <b>, <i>, <em>, <span dir=ltr|rtl>, their
   closing tags (only when open), <br> and <wbr>; '&' is escaped only before '{'; the
   tags still open at the end are closed, the last opened first. The C++ looks ahead
   from '<' with memcmp: the filter keeps, after a '<', the tags the elements read since
   still begin (a bit each) and how many it read (at most 13): those elements are the
   tags' first ones, so it holds no element. A held '&' waits for the next element.
   snippet_escape_2010 is SnippetEscape as ctemplate had it before January 2011 (commit
   8c338f3, June 2010), which a paper of 2012 may have learned: only <b> and <i> are
   tracked, in the five states of its enum (none, b, i, b then i, i then b), with <br>
   and <wbr> let through. */
static const char *const snippet_tags[] = {"b>", "i>", "em>", "span dir=ltr>", "span dir=rtl>", "/b>", "/i>",
                                           "/em>", "/span>", "br>", "wbr>"};
#define SNIPPET_TAGS 11
static const char *const snippet2010_tags[] = {"b>", "i>", "/b>", "/i>", "br>", "wbr>"};
static const char *const snippet2010_closer[] = {"", "</b>", "</i>", "</i></b>", "</b></i>"};
enum { NONE, B, I, B_THEN_I, I_THEN_B };

static void snippet_plain(int c) {
    switch (c) {
    case '"': emit("&quot;"); break;
    case '\'': emit("&#39;"); break;
    case '>': emit("&gt;"); break;
    case '\r': case '\n': case '\v': case '\f': case '\t': emit(" "); break;
    default: tl_out(c);
    }
}

/* The whole tag t of snippet_tags read: how many tags are open after it (open[] the
   tags in the order opened: 'b', 'i', 'e' (em), 's' (span)), or -1 when it is not let
   through: it opens a tag already open or closes one that is not. */
static int snippet_after(int t, char *open, int nopen) {
    char tag = t == 2 || t == 7 ? 'e' : t == 3 || t == 4 || t == 8 ? 's' : t < 9 ? snippet_tags[t][t >= 5] : 0;
    int found = -1;
    for (int j = 0; j < nopen; j++)
        if (open[j] == tag)
            found = j;
    if (t < 5 && found < 0) {
        open[nopen] = tag;
        return nopen + 1;
    }
    if (t >= 5 && t < 9 && found >= 0) {
        for (int j = found; j + 1 < nopen; j++)
            open[j] = open[j + 1];
        return nopen - 1;
    }
    return t >= 9 ? nopen : -1;
}

/* The same for a tag of snippet2010_tags: the state of the 2010 enum after it (the
   C++'s conditions), or -1. */
static int snippet2010_after(int t, int state) {
    if (t == 0 && (state == NONE || state == I))
        return state == I ? I_THEN_B : B;
    if (t == 1 && (state == NONE || state == B))
        return state == B ? B_THEN_I : I;
    if (t == 2 && state != NONE && state != I)
        return state == B ? NONE : I;
    if (t == 3 && state != NONE && state != B)
        return state == I ? NONE : B;
    return t >= 4 ? state : -1;
}

static void snippet(int in_2010) {
    const char *const *names = in_2010 ? snippet2010_tags : snippet_tags;
    int ntags = in_2010 ? 6 : SNIPPET_TAGS;
    char open[4];
    int state = 0; /* how many tags are open (in open[]), or the 2010 enum's state */
    int tags = -1; /* -1: no '<' held; else the tags still begun by what followed it */
    int n = 0; /* the elements read since the '<' */
    int amp = 0; /* an '&' held */
    int at_end = 0;
    while (!at_end) {
        int c = 0;
        if (tl_eof())
            at_end = 1;
        else
            c = tl_in();
        if (amp) {
            emit(!at_end && c == '{' ? "&amp;" : "&");
            amp = 0;
        }
        if (tags >= 0) {
            int begun = 0, done = -1;
            for (int t = 0; t < ntags && !at_end && done < 0; t++) {
                if (!(tags >> t & 1) || names[t][n] != c)
                    continue;
                if (names[t][n + 1] != 0) {
                    begun |= 1 << t; /* a tag may still follow */
                    continue;
                }
                int after = in_2010 ? snippet2010_after(t, state) : snippet_after(t, open, state);
                if (after >= 0) {
                    state = after;
                    done = t;
                }
            }
            if (done >= 0) {
                tl_out('<');
                emit(names[done]);
                tags = -1;
                continue;
            }
            if (begun) {
                tags = begun;
                n++;
                continue;
            }
            /* no tag: the '<' is escaped and what followed it is read again as text
               (the first n elements of any tag still begun then) */
            emit("&lt;");
            int first = 0;
            while (!(tags >> first & 1))
                first++;
            for (int i = 0; i < n; i++)
                snippet_plain(names[first][i]);
            tags = -1;
        }
        if (at_end)
            break;
        if (c == '<') {
            tags = (1 << ntags) - 1;
            n = 0;
        } else if (c == '&') {
            amp = 1;
        } else {
            snippet_plain(c);
        }
    }
    if (in_2010) {
        emit(snippet2010_closer[state]);
        return;
    }
    for (int i = state - 1; i >= 0; i--)
        emit(open[i] == 'b' ? "</b>" : open[i] == 'i' ? "</i>" : open[i] == 'e' ? "</em>" : "</span>");
}

void snippet_escape(void) { snippet(0); }
void snippet_escape_2010(void) { snippet(1); }
