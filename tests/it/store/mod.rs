//! The store on disk: nothing pending in clear at rest, crash safety, start-up integrity.

mod at_rest;
mod crash;
mod postgres_failover; // issue 35
mod postgres_migrate; // issue 35
mod postgres_schema; // issue 35
mod postgres_stewards; // issue 35
mod startup;
mod steward_openpgp_key; // issue 33
