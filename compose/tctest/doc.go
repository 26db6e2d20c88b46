// Package tctest holds integration tests (build tag integration) that start
// Kafka clusters with testcontainers-go's compose module — Docker Compose
// itself, not kbf's own container code — and then measure them with kbf's
// -f machinery: a compose file written as a user would write it, and
// compose/compose.yaml run as it is. The package has no code of its own.
package tctest
