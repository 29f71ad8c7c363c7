// Package oracle searches a program's whole state graph, independently of
// every engine, for the differential tests that check a program against its
// translation into another language (internal/kb2c, internal/kb2go): the
// violation kinds reachable at any depth, the fewest steps to each, and the
// longest execution, from which follow the verdict every exact engine owes
// at a depth. It is internal and used only by tests.
package oracle
