// Package procgroup starts a command in a process group of its own and
// ends the group, so that what the command started (a shell's children, an
// ssh ControlPersist master) ends with it. It imports only the standard
// library. Without process groups (not unix), the command alone is ended.
package procgroup
