"""The dataset schema, one definition shared by the writer (`generate.pack`), the checker
(`shards.check_layout`) and the reader (`dataset`): file names, the splits and choosers that
index tensors, and which tensors run per deal, per decision and per legal move
(docs/dataset-format.md describes each).
"""
MANIFEST = "manifest.json"
SPLITS = ("train", "val", "test")
CHOOSERS = ("teacher", "mix")

# One row per deal / per recorded decision / per legal move of a decision.
DEAL_TENSORS = ("deal_id", "deal_seed", "deal_split", "deal_payoffs")
RECORD_TENSORS = ("rec_deal_id", "rec_split", "rec_seat", "rec_role", "rec_step", "rec_factored",
                  "rec_chooser", "rec_teacher_choice", "rec_played", "rec_temperature", "rec_score")
MOVE_TENSORS = ("move_teacher_score", "move_teacher_policy")
# What every shard's metadata must say about itself.
SHARD_KEYS = ("run", "roles", "choosers", "splits", "move_encoding", "num_seats")
