# SPDX-License-Identifier: GPL-2.0-or-later
# fnlen.awk -v max=N FILE...: every C function longer than N lines, as FILE:LINE: N lines: SIGNATURE.
# A function: a line at column 0 that opens a parameter list (not a declaration, a struct
# or an initialiser), through the line that ends in "{", to the "}" at column 0.
/^[A-Za-z_][^;=]*[(]/ && !/^(struct|enum|union|typedef|#)/ && !body { sig = FNR; name = $0 }
sig && !body && /[{]$/ { body = 1 }
sig && !body && /;$/ { sig = 0 }
/^[}]/ && body { n = FNR - sig + 1; if (n > max) printf "%s:%d: %d lines: %s\n", FILENAME, sig, n, name; sig = 0; body = 0 }
