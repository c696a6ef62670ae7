export KTUNE_CACHE_DIR=$(mktemp -d)/ktune
k=build-gpu/tuner/ktune
for p in "f32 8192x2048" "f32 8191x4097" "f32 16384x16384" "u8 16384x8192" "u8 8191x4097"; do
  set -- $p; s=$(date +%s.%N)
  $k tune transpose --dtype $1 --shape $2 > $OUT/t-$1-$2.txt 2>&1; echo "$1 $2 rc=$? wall $(echo "$(date +%s.%N) - $s" | bc) s"
  grep -E "configs evaluated|winner" $OUT/t-$1-$2.txt | cut -c1-250
done
$k tune elementwise --expr add --n 67108864 2>&1 | grep -E "configs evaluated|rror" | cut -c1-200
for f in $KTUNE_CACHE_DIR/logs/*.jsonl; do python3 -c "
import json,sys
r=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
h=r[0]; c=r[-1]
print(h['run'], 'harness_s', round(h.get('harness_seconds',-1),2), 'seconds', round(c.get('seconds',-1),2), 'search', round(c.get('search_seconds',-1),2))
" $f; done
tar -czf $OUT/t-logs.tar.gz -C $KTUNE_CACHE_DIR logs
