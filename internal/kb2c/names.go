package kb2c

import "strings"

// Names. A .kb name becomes the same C name unless C or cfront gives that
// name a meaning of its own: then it is prefixed with "kb_". Names the
// translation makes up start with "kbh_", which no translated name does (a
// .kb name that starts with "kb" is prefixed too), so the two never meet.
// Locals and parameters that would hide a top-level name are renamed again
// (see paramName), so that C's scopes resolve every name as .kb's do even
// where an expression function's body is substituted into its caller.

// cReserved are C's keywords and the names cfront models whatever their
// definition (a call of a function named printf or sleep is ignored, one named
// free frees), besides main and the names of the C form's own declarations.
var cReserved = map[string]bool{
	"auto": true, "break": true, "case": true, "char": true, "const": true, "continue": true,
	"default": true, "do": true, "double": true, "else": true, "enum": true, "extern": true,
	"float": true, "for": true, "goto": true, "if": true, "inline": true, "int": true, "long": true,
	"register": true, "restrict": true, "return": true, "short": true, "signed": true,
	"sizeof": true, "static": true, "struct": true, "switch": true, "typedef": true, "union": true,
	"unsigned": true, "void": true, "volatile": true, "while": true, "asm": true, "typeof": true,
	"main": true, "tid": true, "reach_error": true, "abort": true, "exit": true, "malloc": true,
	"calloc": true, "realloc": true, "free": true, "memset": true, "alloca": true,
	"printf": true, "fprintf": true, "puts": true, "putchar": true, "fflush": true, "fputs": true,
	"perror": true, "sleep": true, "usleep": true, "nanosleep": true, "srand": true,
	"assume_abort_if_not": true, "NULL": true,
}

// cReservedPrefixes start names that are C's (an underscore), a library's, or
// this package's.
var cReservedPrefixes = []string{"_", "pthread", "sched_", "kb"}

// cName is the C name of a .kb name.
func cName(name string) string {
	if cReserved[name] {
		return "kb_" + name
	}
	for _, p := range cReservedPrefixes {
		if strings.HasPrefix(name, p) {
			return "kb_" + name
		}
	}
	return name
}
