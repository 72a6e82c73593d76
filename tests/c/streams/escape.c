/* An HTML escaper in the manner of ctemplate's HtmlEscape (written for these tests). */
#include <tracelearn.h>

static void emit(const char *s) {
    while (*s)
        tl_out(*s++);
}

void html_escape(void) {
    while (1) {
        int c = tl_in();
        switch (c) {
        case '&': emit("&amp;"); break;
        case '"': emit("&quot;"); break;
        case '<': emit("&lt;"); break;
        case '>': emit("&gt;"); break;
        case '\r': case '\n': case '\t': tl_out(' '); break;
        default: tl_out(c);
        }
    }
}
