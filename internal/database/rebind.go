package database

import (
	"strconv"
	"strings"
)

// Rebind rewrites the ? placeholders of query for dialect: unchanged for
// SQLite, numbered $1, $2, ... for PostgreSQL. A ? inside a string literal,
// a quoted identifier, a comment or a dollar-quoted string is left alone.
func Rebind(dialect Dialect, query string) string {
	if dialect != Postgres || strings.IndexByte(query, '?') < 0 {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i++
			continue
		case c == '\'':
			// E'...' strings take backslash escapes.
			esc := i > 0 && (query[i-1] == 'E' || query[i-1] == 'e') && (i < 2 || !isIdentByte(query[i-2]))
			end := skipQuoted(query, i, '\'', esc)
			b.WriteString(query[i:end])
			i = end
			continue
		case c == '"':
			end := skipQuoted(query, i, '"', false)
			b.WriteString(query[i:end])
			i = end
			continue
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				end = len(query)
			} else {
				end += i + 1
			}
			b.WriteString(query[i:end])
			i = end
			continue
		case c == '/' && i+1 < len(query) && query[i+1] == '*':
			end := skipBlockComment(query, i)
			b.WriteString(query[i:end])
			i = end
			continue
		case c == '$' && (i == 0 || !isIdentByte(query[i-1])):
			if end, ok := skipDollarQuoted(query, i); ok {
				b.WriteString(query[i:end])
				i = end
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// skipQuoted returns the index just past the quoted text starting at
// q[start] == quote. A doubled quote stands for itself; with backslash,
// so does \<quote>. An unterminated quote runs to the end.
func skipQuoted(q string, start int, quote byte, backslash bool) int {
	for i := start + 1; i < len(q); i++ {
		switch q[i] {
		case '\\':
			if backslash {
				i++
			}
		case quote:
			if i+1 < len(q) && q[i+1] == quote {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(q)
}

// skipBlockComment returns the index just past the comment starting at
// q[start:] == "/*". PostgreSQL's block comments nest.
func skipBlockComment(q string, start int) int {
	depth := 0
	for i := start; i+1 < len(q); i++ {
		switch {
		case q[i] == '/' && q[i+1] == '*':
			depth++
			i++
		case q[i] == '*' && q[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(q)
}

// skipDollarQuoted reports whether q[start:] opens a dollar-quoted string
// ($$...$$ or $tag$...$tag$) and returns the index just past it.
func skipDollarQuoted(q string, start int) (int, bool) {
	j := start + 1
	for j < len(q) && q[j] != '$' {
		c := q[j]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80 || j > start+1 && '0' <= c && c <= '9') {
			return 0, false // $1, or a lone $
		}
		j++
	}
	if j >= len(q) {
		return 0, false
	}
	tag := q[start : j+1]
	end := strings.Index(q[j+1:], tag)
	if end < 0 {
		return len(q), true
	}
	return j + 1 + end + len(tag), true
}
