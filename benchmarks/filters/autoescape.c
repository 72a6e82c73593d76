/* Google AutoEscape's modifiers (ctemplate, src/template_modifiers.cc) as stream
   filters, written for tracelearn's benchmark after the loops and guards of that
   file: one element in, its escape out. Differences from the C++ (which sees the
   whole string at once) are noted where a filter has to remember what it saw. */
#include <tracelearn.h>

static void emit(const char *s) {
    while (*s)
        tl_out(*s++);
}

static int is_alnum(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

void html_escape(void) {
    while (1) {
        int c = tl_in();
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

void cleanse_attribute(void) {
    while (1) {
        int c = tl_in();
        switch (c) {
        case '-': case '.': case '_': case ':': tl_out(c); break;
        default:
            if (is_alnum(c))
                tl_out(c);
            else
                tl_out('_');
        }
    }
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

void javascript_escape(void) {
    while (1) {
        int c = tl_in();
        switch (c) {
        case '"': emit("\\x22"); break;
        case '\'': emit("\\x27"); break;
        case '\\': emit("\\\\"); break;
        case '\t': emit("\\t"); break;
        case '\r': emit("\\r"); break;
        case '\n': emit("\\n"); break;
        case '\b': emit("\\b"); break;
        case '&': emit("\\x26"); break;
        case '<': emit("\\x3c"); break;
        case '>': emit("\\x3e"); break;
        case '=': emit("\\x3d"); break;
        default: tl_out(c);
        }
    }
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

/* "&nbsp;" becomes "&#160;". The C++ looks ahead with memcmp; a stream filter keeps
   how much of "&nbsp;" it has seen and writes it back when the match fails, or at
   the end of the input. */
void xml_escape(void) {
    static const char nbsp[] = "&nbsp;";
    int seen = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (c == nbsp[seen]) {
            seen++;
            if (seen == 6) {
                emit("&#160;");
                seen = 0;
            }
            continue;
        }
        for (int i = 0; i < seen; i++)
            tl_out(nbsp[i]);
        seen = 0;
        if (c == '&')
            seen = 1;
        else
            tl_out(c);
    }
    for (int i = 0; i < seen; i++)
        tl_out(nbsp[i]);
}

/* After each line break (\n, \r, or \r\n as one) the prefix, here "> ". A \r may
   start a \r\n: the prefix waits for the next element, or the end. */
void prefix_line(void) {
    int after_cr = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (after_cr && c != '\n')
            emit("> ");
        tl_out(c);
        after_cr = 0;
        if (c == '\n')
            emit("> ");
        else if (c == '\r')
            after_cr = 1;
    }
    if (after_cr)
        emit("> ");
}
