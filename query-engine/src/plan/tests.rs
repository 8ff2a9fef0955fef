//! Planner tests: the plan trees requests resolve to, without SQL.
