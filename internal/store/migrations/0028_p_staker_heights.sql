-- The validator lists (store.StakersChangedSince) ask whether any staker
-- was added or removed after a height, to keep their in-memory view of
-- every staker until one is: two index probes instead of a scan.
CREATE INDEX p_stakers_added_height ON p_stakers (added_height);
CREATE INDEX p_stakers_removed_height ON p_stakers (removed_height) WHERE removed_height IS NOT NULL;
